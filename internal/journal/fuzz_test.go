package journal

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"testing"
)

// fuzzSeeds are journal contents worth starting from.
func fuzzSeeds(f *testing.F) [][]byte {
	good := lines(f, testRecords(0, 3))
	return [][]byte{
		nil,
		[]byte("\n"),
		[]byte(good),
		[]byte(good + `{"ts":"2026-11-29T18:35:00Z","tool":"Ed`),
		[]byte(good + "junk\n\nnull\n[1]\n" + good),
		[]byte(`{"ts":"2026-11-29T18:35:00Z"}`),
		[]byte("{\"ts\":\"2026\n" + good + "\r\n\r\n"),
		[]byte(`{"ts":"2026-11-29T18:35:00Z","desc":"` + string(bytes.Repeat([]byte("a"), 300)) + "\"}\n"),
	}
}

// fuzzBlock picks a block size from the fuzzer's byte: small blocks put block
// boundaries everywhere, but large inputs get larger ones so that each input
// takes at most about a hundred reads.
func fuzzBlock(b uint8, size int) int {
	return max(int(b%64)+1, size/100)
}

// referenceLines is the plain reading of a journal: every complete line
// (ending in a newline) with the offset just past it.
func referenceLines(data []byte, from int) (lines [][]byte, ends []int) {
	for p := from; ; {
		i := bytes.IndexByte(data[p:], '\n')
		if i < 0 {
			return lines, ends
		}
		lines = append(lines, data[p:p+i])
		p += i + 1
		ends = append(ends, p)
	}
}

func FuzzTail(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed, uint8(2), uint8(3))
		f.Add(seed, uint8(10), uint8(1))
	}
	// One folder for every input: a new one each time would make the file
	// system, not the reader, what is being exercised.
	j := Open(f.TempDir(), Options{})
	f.Fuzz(func(t *testing.T, data []byte, n, block uint8) {
		j.blockSize = fuzzBlock(block, len(data))
		writeActive(t, j, string(data))
		got := tailOf(t, j, int(n), TailOptions{})

		var want []Record
		lines, _ := referenceLines(data, 0)
		for _, l := range lines {
			if rec, ok := decodeLine(l); ok {
				want = append(want, rec)
			}
		}
		want = want[max(0, len(want)-int(n)):]
		sameRecords(t, "Tail", got, want)
	})
}

func FuzzScan(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed, int64(0), uint8(3))
		f.Add(seed, int64(5), uint8(64))
		f.Add(seed, int64(len(seed)), uint8(1))
	}
	j := Open(f.TempDir(), Options{})
	f.Fuzz(func(t *testing.T, data []byte, from int64, block uint8) {
		j.blockSize = fuzzBlock(block, len(data))
		writeActive(t, j, string(data))
		var got []scanned
		off, err := j.Scan(context.Background(), Offset(from), func(rec Record, end Offset) error {
			got = append(got, scanned{rec, end})
			return nil
		})

		if from < 0 || from > int64(len(data)) {
			if !errors.Is(err, ErrOffset) || off != Offset(from) {
				t.Fatalf("Scan(%d) of %d bytes: got %d, %v; want ErrOffset", from, len(data), off, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Scan(%d): %v", from, err)
		}
		// From inside a line, reading starts after it.
		start, wantOff := int(from), from
		if start > 0 && data[start-1] != '\n' {
			i := bytes.IndexByte(data[start:], '\n')
			if i < 0 {
				start = len(data) // no line starts after from yet
			} else {
				start += i + 1
				wantOff = int64(start)
			}
		}
		var want []scanned
		lines, ends := referenceLines(data, start)
		for k, l := range lines {
			if rec, ok := decodeLine(l); ok {
				want = append(want, scanned{rec, Offset(ends[k])})
			}
			wantOff = int64(ends[k])
		}
		if off != Offset(wantOff) {
			t.Fatalf("Scan(%d) offset: got %d; want %d", from, off, wantOff)
		}
		if off > 0 && off != Offset(from) && data[off-1] != '\n' {
			t.Fatalf("Scan(%d) offset %d is inside a line", from, off)
		}
		if (len(got) > 0 || len(want) > 0) && !reflect.DeepEqual(got, want) {
			t.Fatalf("Scan(%d): got %+v; want %+v", from, got, want)
		}
		for k := range got {
			if data[got[k].end-1] != '\n' {
				t.Fatalf("Scan(%d) record %d ends at %d, not after a newline", from, k, got[k].end)
			}
		}
	})
}
