package journal

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRotation(t *testing.T) {
	j := Open(t.TempDir(), Options{MaxSize: 2000, Now: fixedClock(t0)})
	const total = 200
	var midOffset Offset
	var midIndex int
	for i := range total {
		mustAppend(t, j, testRecord(i))
		if i == 40 {
			// An indexer catches up here, before most rotations.
			got, off := scanAll(t, j, 0)
			sameRecords(t, "Scan before rotations", scannedRecords(got), testRecords(0, 41))
			midOffset, midIndex = off, 41
		}
	}

	names := archiveFiles(t, j)
	if n := countSuffix(names, gzExt); n < 5 {
		t.Fatalf("archive %v: got %d compressed segments; want several", names, n)
	}
	if n := countSuffix(names, plainExt); n != 0 {
		t.Fatalf("archive %v: got %d uncompressed segments; want none", names, n)
	}
	// All rotations happened in the same second: names stay unique and sort
	// in journal order.
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Fatalf("archive names %v: want unique and sorted", names)
	}
	fi, err := os.Stat(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 2000+int64(len(line(t, testRecord(total)))) {
		t.Fatalf("active file: got %d bytes; want it rotated at about 2000", fi.Size())
	}

	all, end := scanAll(t, j, 0)
	sameRecords(t, "Scan from 0", scannedRecords(all), testRecords(0, total))
	if want := Offset(len(lines(t, testRecords(0, total)))); end != want {
		t.Fatalf("end offset: got %d; want %d, the size of every record written", end, want)
	}
	for i := 1; i < len(all); i++ {
		if all[i].end <= all[i-1].end {
			t.Fatalf("end offsets go back: %d then %d", all[i-1].end, all[i].end)
		}
	}

	rest, _ := scanAll(t, j, midOffset)
	sameRecords(t, "Scan from an offset taken before the rotations", scannedRecords(rest), testRecords(midIndex, total))

	// Resume from every end offset, in every segment.
	for i := 0; i < len(all); i += 17 {
		rest, _ := scanAll(t, j, all[i].end)
		sameRecords(t, "Scan from an end offset", scannedRecords(rest), testRecords(i+1, total))
	}

	active := len(tailOf(t, j, total, TailOptions{Match: func(r *Record) bool { return false }}))
	if active != 0 {
		t.Fatalf("Tail with a Match that refuses all: got %d records; want 0", active)
	}
	for _, n := range []int{1, 10, 30, 80, total, total + 5} {
		want := testRecords(max(0, total-n), total)
		sameRecords(t, "Tail across segments", tailOf(t, j, n, TailOptions{}), want)
	}
	even := func(r *Record) bool { return r.Offset%2 == 0 }
	var wantEven []Record
	for i := total - 100; i < total; i += 2 {
		wantEven = append(wantEven, testRecord(i))
	}
	sameRecords(t, "Tail with Match across segments", tailOf(t, j, 50, TailOptions{Match: even}), wantEven)
}

func TestRotationDisabled(t *testing.T) {
	j := Open(t.TempDir(), Options{MaxSize: -1})
	for i := range 50 {
		mustAppend(t, j, testRecord(i))
	}
	if names := archiveFiles(t, j); len(names) != 0 {
		t.Fatalf("archive: got %v; want no rotation", names)
	}
}

func TestTailMaxBytesAcrossSegments(t *testing.T) {
	j := Open(t.TempDir(), Options{MaxSize: -1, Now: fixedClock(t0)})
	recs := testRecords(1000, 1030) // lines of one length
	l := int64(len(line(t, recs[0])))
	mustAppend(t, j, recs[:10]...)
	rotate(t, j)
	mustAppend(t, j, recs[10:20]...)
	rotate(t, j)
	if err := j.Compress(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, j, recs[20:]...)

	tests := []struct {
		name     string
		maxBytes int64
		want     []Record
	}{
		{"less than the active file", 10*l - 1, recs[21:]},
		{"the active file exactly", 10 * l, recs[20:]},
		{"whole active file and one more line", 11*l + 1, recs[19:]},
		{"into the oldest segment", 25*l + 1, recs[5:]},
		{"everything", 30 * l, recs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameRecords(t, "Tail", tailOf(t, j, 100, TailOptions{MaxBytes: tt.maxBytes}), tt.want)
		})
	}
}

// rotate runs rotation step 1 alone, as a writer killed before compressing
// leaves it.
func rotate(t testing.TB, j *Journal) {
	t.Helper()
	lk, err := j.lockExclusive()
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Close()
	if err := j.detachActive(); err != nil {
		t.Fatal(err)
	}
}

func TestInterruptedRotation(t *testing.T) {
	tests := []struct {
		name string
		// crash leaves the archive as a rotation that died at some step
		// leaves it, after records 0–9 were written.
		crash      func(t *testing.T, j *Journal)
		plainAfter int // uncompressed segments left before Compress
	}{
		{
			name:       "renamed, not compressed",
			crash:      func(t *testing.T, j *Journal) { rotate(t, j) },
			plainAfter: 1,
		},
		{
			name: "compressed, uncompressed file not removed",
			crash: func(t *testing.T, j *Journal) {
				rotate(t, j)
				segs, err := j.listArchive()
				if err != nil {
					t.Fatal(err)
				}
				if err := compressSegment(context.Background(), segs[0]); err != nil {
					t.Fatal(err)
				}
			},
			plainAfter: 1,
		},
		{
			name: "killed while writing the compressed file",
			crash: func(t *testing.T, j *Journal) {
				rotate(t, j)
				segs, err := j.listArchive()
				if err != nil {
					t.Fatal(err)
				}
				temp := filepath.Join(j.archiveDir(), "."+filepath.Base(segs[0].gzPath())+"8674665223082153551")
				if err := os.WriteFile(temp, []byte("\x1f\x8b half"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			plainAfter: 1,
		},
		{
			name: "two interrupted rotations",
			crash: func(t *testing.T, j *Journal) {
				rotate(t, j)
				mustAppend(t, j, testRecord(100))
				rotate(t, j)
			},
			plainAfter: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Open(t.TempDir(), Options{MaxSize: -1, Now: fixedClock(t0)})
			mustAppend(t, j, testRecords(0, 10)...)
			tt.crash(t, j)
			mustAppend(t, j, testRecords(10, 15)...)
			var want []Record
			all, _ := scanAll(t, j, 0)
			for _, s := range all {
				want = append(want, s.rec)
			}
			if n := len(want); n < 15 || !slices.Equal(offsetsOf(want[:10]), offsetsOf(testRecords(0, 10))) {
				t.Fatalf("Scan after the crash: got %s; want records 0–9 first, then the rest", summary(want))
			}
			if got := countSuffix(archiveFiles(t, j), plainExt); got != tt.plainAfter {
				t.Fatalf("uncompressed segments after the crash: got %d; want %d", got, tt.plainAfter)
			}
			sameRecords(t, "Tail after the crash", tailOf(t, j, 100, TailOptions{}), want)

			// The next rotation finishes the interrupted one.
			j.maxSize = 1
			mustAppend(t, j, testRecord(15))
			want = append(want, testRecord(15))
			names := archiveFiles(t, j)
			if n := countSuffix(names, plainExt); n != 0 {
				t.Fatalf("archive after the next rotation: got %v; want no uncompressed segment", names)
			}
			all, _ = scanAll(t, j, 0)
			sameRecords(t, "Scan after recovery", scannedRecords(all), want)
			sameRecords(t, "Tail after recovery", tailOf(t, j, 100, TailOptions{}), want)
		})
	}
}

func offsetsOf(recs []Record) []int64 {
	var o []int64
	for _, r := range recs {
		o = append(o, r.Offset)
	}
	return o
}

func TestCompressRemovesOnlyStaleTemps(t *testing.T) {
	now := t0.Add(48 * time.Hour)
	j := Open(t.TempDir(), Options{MaxSize: -1, Now: fixedClock(now)})
	mustAppend(t, j, testRecords(0, 3)...)
	rotate(t, j)
	segs, err := j.listArchive()
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(j.archiveDir(), "."+filepath.Base(segs[0].gzPath())+"111")
	fresh := filepath.Join(j.archiveDir(), "."+filepath.Base(segs[0].gzPath())+"222")
	other := filepath.Join(j.archiveDir(), "notes.txt")
	for _, p := range []string{stale, fresh, other} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(stale, now.Add(-2*time.Hour), now.Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(fresh, now.Add(-time.Minute), now.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := j.Compress(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{"." + filepath.Base(segs[0].gzPath()) + "222", filepath.Base(segs[0].gzPath()), "notes.txt"}
	if got := archiveFiles(t, j); !slices.Equal(got, want) {
		t.Fatalf("archive after Compress: got %v; want %v", got, want)
	}
}

func TestArchiveEdits(t *testing.T) {
	tests := []struct {
		name string
		edit func(t *testing.T, segs []segment)
		// from is the index of the first record Scan from 0 returns.
		from int
	}{
		{"oldest segment deleted", func(t *testing.T, segs []segment) {
			if err := os.Remove(segs[0].gzPath()); err != nil {
				t.Fatal(err)
			}
		}, 10},
		{"segment compressed by hand, without its size", func(t *testing.T, segs []segment) {
			recompress(t, segs[1].gzPath())
			recompress(t, segs[0].gzPath())
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Open(t.TempDir(), Options{MaxSize: -1, Now: fixedClock(t0)})
			mustAppend(t, j, testRecords(0, 10)...)
			rotate(t, j)
			mustAppend(t, j, testRecords(10, 20)...)
			rotate(t, j)
			mustAppend(t, j, testRecords(20, 30)...)
			if err := j.Compress(context.Background()); err != nil {
				t.Fatal(err)
			}
			before, _ := scanAll(t, j, 0)
			segs, err := j.listArchive()
			if err != nil || len(segs) != 2 {
				t.Fatalf("archive: got %v, %v; want two segments", segs, err)
			}
			tt.edit(t, segs)

			after, end := scanAll(t, j, 0)
			// Every record keeps its offset.
			if !slices.Equal(after, before[tt.from:]) {
				t.Fatalf("Scan from 0: got %s; want %s with the same offsets", summary(scannedRecords(after)), summary(scannedRecords(before[tt.from:])))
			}
			if end != before[len(before)-1].end {
				t.Fatalf("end offset: got %d; want %d", end, before[len(before)-1].end)
			}
			// An offset inside the second segment, mid-line.
			rest, _ := scanAll(t, j, before[12].end+3)
			sameRecords(t, "Scan from inside a compressed segment", scannedRecords(rest), testRecords(14, 30))
			sameRecords(t, "Tail", tailOf(t, j, 25, TailOptions{}), testRecords(max(5, tt.from), 30))
		})
	}
}

// recompress rewrites a gzip file as a plain gzip tool would, with no header
// comment.
func recompress(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(zr.Comment, sizeComment) {
		t.Fatalf("gzip comment: got %q; want the segment size", zr.Comment)
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(out)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestSegmentNames(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		wantKey   string
		wantStart int64
		wantGz    bool
		wantOK    bool
	}{
		{"compressed", "auto-20261129T183500Z-000000001234.jsonl.gz", "auto-20261129T183500Z-000000001234", 1234, true, true},
		{"uncompressed", "auto-20261129T183500Z-000000000000.jsonl", "auto-20261129T183500Z-000000000000", 0, false, true},
		{"wider start", "auto-20261129T183500Z-1234567890123456.jsonl.gz", "auto-20261129T183500Z-1234567890123456", 1234567890123456, true, true},
		{"temp file", ".auto-20261129T183500Z-000000001234.jsonl.gz123", "", 0, false, false},
		{"other file", "notes.jsonl", "", 0, false, false},
		{"no start", "auto-20261129T183500Z.jsonl.gz", "", 0, false, false},
		{"negative start", "auto-20261129T183500Z--5.jsonl", "", 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, start, gz, ok := parseSegmentName(tt.file)
			if key != tt.wantKey || start != tt.wantStart || gz != tt.wantGz || ok != tt.wantOK {
				t.Fatalf("parseSegmentName(%q): got %q, %d, %v, %v; want %q, %d, %v, %v",
					tt.file, key, start, gz, ok, tt.wantKey, tt.wantStart, tt.wantGz, tt.wantOK)
			}
		})
	}
	if got, want := segmentName(time.Date(2026, 11, 29, 18, 35, 0, 0, time.FixedZone("JST", 9*3600)), 42), "auto-20261129T093500Z-000000000042"; got != want {
		t.Fatalf("segmentName: got %q; want %q", got, want)
	}
}
