package journal

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTail(t *testing.T) {
	long := testRecord(100)
	long.Desc = strings.Repeat("x", 300)
	huge := testRecord(101)
	huge.Message = strings.Repeat("y", 200<<10)
	malformed := strings.Join([]string{
		"not json",
		`[1,2,3]`,
		`null`,
		`"text"`,
		`{"ts":5,"tool":"Edit"}`,
		`{"ts":"2026-11-29T18:35:00Z","tool":["Edit"]}`,
		`{"ts":"2026-11-29T18:35:00Z","tool":"Edit"`,
		``,
		"  \t",
	}, "\n") + "\n"
	isEven := func(r *Record) bool { return r.Offset%2 == 0 }
	// Keeps the lines of files numbered 10 to 19, and lines it cannot read,
	// which decoding then drops.
	teens := func(line []byte) bool {
		return bytes.Contains(line, []byte("/file1")) || !bytes.Contains(line, []byte("/file"))
	}

	tests := []struct {
		name  string
		data  string
		n     int
		opts  TailOptions
		block int // 0 for the default
		want  []Record
	}{
		{name: "last n oldest first", data: lines(t, testRecords(0, 10)), n: 3, want: testRecords(7, 10)},
		{name: "n larger than the journal", data: lines(t, testRecords(0, 4)), n: 50, want: testRecords(0, 4)},
		{name: "n zero", data: lines(t, testRecords(0, 4)), n: 0},
		{name: "empty file", data: "", n: 5},
		{name: "only newlines", data: "\n\n\n", n: 5},
		{name: "torn last line skipped", data: lines(t, testRecords(0, 3)) + `{"ts":"2026-11-29T18:35:00Z","to`, n: 2, want: testRecords(1, 3)},
		{name: "whole record without newline skipped", data: lines(t, testRecords(0, 3)) + strings.TrimSuffix(line(t, testRecord(3)), "\n"), n: 5, want: testRecords(0, 3)},
		{name: "torn only line", data: `{"ts":"2026-11-29T18:35:00Z"}`, n: 5},
		{name: "torn line ended by the next append", data: line(t, testRecord(0)) + `{"ts":"2026` + "\n" + line(t, testRecord(1)), n: 5, want: testRecords(0, 2)},
		{name: "malformed lines skipped", data: line(t, testRecord(0)) + malformed + line(t, testRecord(1)) + malformed, n: 5, want: testRecords(0, 2)},
		{name: "CRLF line endings", data: strings.ReplaceAll(lines(t, testRecords(0, 3)), "\n", "\r\n"), n: 5, want: testRecords(0, 3)},
		{name: "match filter", data: lines(t, testRecords(0, 20)), n: 3, opts: TailOptions{Match: isEven}, want: []Record{testRecord(14), testRecord(16), testRecord(18)}},
		{name: "match filter finds fewer than n", data: lines(t, testRecords(0, 5)), n: 10, opts: TailOptions{Match: isEven}, want: []Record{testRecord(0), testRecord(2), testRecord(4)}},
		{name: "prefilter", data: lines(t, testRecords(0, 30)), n: 4, opts: TailOptions{Prefilter: teens}, want: testRecords(16, 20)},
		{name: "prefilter and match", data: lines(t, testRecords(0, 30)) + malformed, n: 3, opts: TailOptions{Prefilter: teens, Match: isEven}, want: []Record{testRecord(14), testRecord(16), testRecord(18)}},
		{name: "lines longer than the block", data: lines(t, []Record{testRecord(0), long, testRecord(1), long}), n: 3, block: 16, want: []Record{long, testRecord(1), long}},
		{name: "first line longer than the block", data: lines(t, []Record{long, testRecord(1)}), n: 3, block: 7, want: []Record{long, testRecord(1)}},
		{name: "line of 200 KiB with the default block", data: lines(t, []Record{testRecord(0), huge, testRecord(1)}), n: 3, want: []Record{testRecord(0), huge, testRecord(1)}},
		{name: "block of one byte", data: lines(t, testRecords(0, 5)) + "torn", n: 3, block: 1, want: testRecords(2, 5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Open(t.TempDir(), Options{})
			if tt.block > 0 {
				j.blockSize = tt.block
			}
			writeActive(t, j, tt.data)
			sameRecords(t, "Tail", tailOf(t, j, tt.n, tt.opts), tt.want)
		})
	}
}

func TestTailMaxBytes(t *testing.T) {
	// Records of one length, so MaxBytes counts whole lines.
	var recs []Record
	for i := range 100 {
		recs = append(recs, testRecord(1000+i))
	}
	l := int64(len(line(t, recs[0])))
	data := lines(t, recs)
	if int64(len(data)) != 100*l {
		t.Fatalf("test records differ in length: %d bytes for 100 of %d", len(data), l)
	}
	tests := []struct {
		name     string
		maxBytes int64
		torn     string
		want     []Record
	}{
		// The tenth line from the end starts exactly MaxBytes before the end,
		// so Tail cannot see the newline before it and cannot know it whole.
		{name: "ten lines of bytes", maxBytes: 10 * l, want: recs[91:]},
		{name: "ten lines and the newline before them", maxBytes: 10*l + 1, want: recs[90:]},
		{name: "less than a line", maxBytes: l - 1},
		{name: "whole file", maxBytes: 100 * l, want: recs[80:]},
		{name: "no limit", maxBytes: 0, want: recs[80:]},
		{name: "a torn line counts", maxBytes: 10*l + 1 + 5, torn: "{torn", want: recs[90:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Open(t.TempDir(), Options{})
			j.blockSize = 100 // several blocks per window
			writeActive(t, j, data+tt.torn)
			got := tailOf(t, j, 20, TailOptions{MaxBytes: tt.maxBytes})
			sameRecords(t, "Tail", got, tt.want)
		})
	}
}

func TestTailMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	j := Open(dir, Options{})
	got, err := j.Tail(context.Background(), 10, TailOptions{})
	if err != nil || len(got) != 0 {
		t.Fatalf("Tail on a missing folder: got %v, %v; want nothing, no error", got, err)
	}
	next, err := j.Scan(context.Background(), 0, func(Record, Offset) error { return errors.New("called") })
	if err != nil || next != 0 {
		t.Fatalf("Scan on a missing folder: got %d, %v; want 0, no error", next, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("state folder after reading: got %v; want it still missing", err)
	}
}

func TestReadCancelled(t *testing.T) {
	j := Open(t.TempDir(), Options{})
	writeActive(t, j, lines(t, testRecords(0, 5)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := j.Tail(ctx, 3, TailOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Tail: got %v; want context.Canceled", err)
	}
	off, err := j.Scan(ctx, 0, func(Record, Offset) error { return nil })
	if !errors.Is(err, context.Canceled) || off != 0 {
		t.Fatalf("Scan: got %d, %v; want 0, context.Canceled", off, err)
	}
}
