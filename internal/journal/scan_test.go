package journal

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestScanIncremental(t *testing.T) {
	j := Open(t.TempDir(), Options{})
	mustAppend(t, j, testRecords(0, 3)...)
	got, off := scanAll(t, j, 0)
	sameRecords(t, "first Scan", scannedRecords(got), testRecords(0, 3))

	mustAppend(t, j, testRecords(3, 5)...)
	got, off2 := scanAll(t, j, off)
	sameRecords(t, "second Scan", scannedRecords(got), testRecords(3, 5))

	got, off3 := scanAll(t, j, off2)
	if len(got) != 0 || off3 != off2 {
		t.Fatalf("third Scan: got %d records to %d; want none to %d", len(got), off3, off2)
	}
	if want := Offset(len(lines(t, testRecords(0, 5)))); off3 != want {
		t.Fatalf("end offset: got %d; want %d (the file's size)", off3, want)
	}
}

func TestScanEndOffsets(t *testing.T) {
	j := Open(t.TempDir(), Options{})
	recs := testRecords(0, 4)
	writeActive(t, j, line(t, recs[0])+"junk\n"+line(t, recs[1])+"\n"+lines(t, recs[2:]))
	got, _ := scanAll(t, j, 0)
	var ends []Offset
	for _, s := range got {
		ends = append(ends, s.end)
	}
	l := func(i int) Offset { return Offset(len(line(t, recs[i]))) }
	want := []Offset{l(0), l(0) + 5 + l(1), l(0) + 5 + l(1) + 1 + l(2), l(0) + 5 + l(1) + 1 + l(2) + l(3)}
	if !reflect.DeepEqual(ends, want) {
		t.Fatalf("end offsets: got %v; want %v", ends, want)
	}
	// Resuming from each end offset returns exactly the records after it.
	for i, end := range ends {
		rest, _ := scanAll(t, j, end)
		sameRecords(t, "Scan from an end offset", scannedRecords(rest), recs[i+1:])
	}
}

func TestScanPartialLastLine(t *testing.T) {
	j := Open(t.TempDir(), Options{})
	full := line(t, testRecord(2))
	writeActive(t, j, lines(t, testRecords(0, 2))+full[:20])

	got, off := scanAll(t, j, 0)
	sameRecords(t, "Scan with a partial line", scannedRecords(got), testRecords(0, 2))
	if want := Offset(len(lines(t, testRecords(0, 2)))); off != want {
		t.Fatalf("offset: got %d; want %d, the start of the partial line", off, want)
	}

	// The writer finishes its line.
	appendActive(t, j, full[20:])
	got, off = scanAll(t, j, off)
	sameRecords(t, "Scan after the line is complete", scannedRecords(got), testRecords(2, 3))
	if want := Offset(len(lines(t, testRecords(0, 3)))); off != want {
		t.Fatalf("offset: got %d; want %d", off, want)
	}
}

func TestScanFrom(t *testing.T) {
	recs := testRecords(1, 4) // lines of one length
	data := lines(t, recs)
	l := int64(len(line(t, recs[0])))
	size := Offset(len(data))
	tests := []struct {
		name    string
		data    string
		from    Offset
		want    []Record
		wantOff Offset
		wantErr error
	}{
		{name: "start", data: data, from: 0, want: recs, wantOff: size},
		{name: "start of a line", data: data, from: Offset(l), want: recs[1:], wantOff: size},
		{name: "one byte into a line", data: data, from: Offset(l + 1), want: recs[2:], wantOff: size},
		{name: "inside a line", data: data, from: Offset(l + l/2), want: recs[2:], wantOff: size},
		{name: "on a newline", data: data, from: Offset(2*l - 1), want: recs[2:], wantOff: size},
		{name: "inside the last line", data: data, from: size - 3, wantOff: size},
		{name: "at the end", data: data, from: size, wantOff: size},
		{name: "inside a partial last line", data: data + "{partial", from: size + 3, wantOff: size + 3},
		{name: "past the end", data: data, from: size + 1, wantOff: size + 1, wantErr: ErrOffset},
		{name: "negative", data: data, from: -1, wantOff: -1, wantErr: ErrOffset},
		{name: "past the end of an empty file", data: "", from: 1, wantOff: 1, wantErr: ErrOffset},
		{name: "malformed lines move the offset", data: data + "junk\n\n", from: size, wantOff: size + 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Open(t.TempDir(), Options{})
			writeActive(t, j, tt.data)
			var got []Record
			off, err := j.Scan(context.Background(), tt.from, func(rec Record, _ Offset) error {
				got = append(got, rec)
				return nil
			})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Scan error: got %v; want %v", err, tt.wantErr)
			}
			if off != tt.wantOff {
				t.Errorf("offset: got %d; want %d", off, tt.wantOff)
			}
			sameRecords(t, "Scan", got, tt.want)
		})
	}
}

func TestScanLongLines(t *testing.T) {
	j := Open(t.TempDir(), Options{})
	j.blockSize = 16
	long := testRecord(1)
	long.Desc = strings.Repeat("z", 5000)
	recs := []Record{testRecord(0), long, testRecord(2), long}
	writeActive(t, j, lines(t, recs))
	got, off := scanAll(t, j, 0)
	sameRecords(t, "Scan", scannedRecords(got), recs)
	if want := Offset(len(lines(t, recs))); off != want {
		t.Fatalf("offset: got %d; want %d", off, want)
	}
}

func TestScanStopsOnCallbackError(t *testing.T) {
	j := Open(t.TempDir(), Options{})
	mustAppend(t, j, testRecords(0, 5)...)
	stop := errors.New("stop")
	var seen int
	off, err := j.Scan(context.Background(), 0, func(rec Record, _ Offset) error {
		if rec.Offset == 3 {
			return stop
		}
		seen++
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Scan error: got %v; want the callback's", err)
	}
	if seen != 3 {
		t.Errorf("records before the error: got %d; want 3", seen)
	}
	// The failed record is read again from the returned offset.
	got, _ := scanAll(t, j, off)
	sameRecords(t, "Scan after the error", scannedRecords(got), testRecords(3, 5))
}
