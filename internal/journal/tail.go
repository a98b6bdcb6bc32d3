package journal

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
)

// TailOptions narrows what Tail returns.
type TailOptions struct {
	// Match, when set, keeps only the records for which it returns true.
	Match func(*Record) bool
	// Prefilter, when set, sees each line's bytes before it is decoded; a
	// line it rejects is skipped undecoded. Decoding is most of a Tail's
	// cost, so a cheap byte test that rules out most lines (an event name
	// that must appear, say) makes a long search fast. It must not reject a
	// line that Match would keep.
	Prefilter func(line []byte) bool
	// MaxBytes, when positive, is how many bytes Tail reads at most, going
	// back from the end of the journal. A line that may have begun before
	// those bytes is not returned.
	MaxBytes int64
}

// Tail returns the last n records of the journal (the last n that Match
// keeps, when set), oldest first; fewer when the journal holds fewer.
//
// It reads the active file backwards in blocks and stops as soon as it has n,
// so its time and memory depend on n and on how far back the records are, not
// on the journal's size. Only when the active file holds too few does it read
// archived segments, newest first; a compressed one is decompressed whole.
// The bytes after the journal's last newline (a line being written, or torn
// by a killed writer) and lines that are not records are skipped.
func (j *Journal) Tail(ctx context.Context, n int, opts TailOptions) ([]Record, error) {
	if n <= 0 {
		return nil, nil
	}
	snap, err := j.snapshot()
	if err != nil {
		return nil, err
	}
	defer snap.close()

	t := &tail{n: n, match: opts.Match, prefilter: opts.Prefilter, budget: opts.MaxBytes, block: j.blockSize, recs: make([]Record, 0, min(n, 1024))}
	if t.budget <= 0 {
		t.budget = math.MaxInt64
	}
	if snap.active != nil {
		at := snap.active.at
		if j.cache != nil && opts.MaxBytes > 0 {
			at = j.cache.readerAt(at, snap.activeKey(), snap.active.size, opts.MaxBytes)
		}
		if err := t.backwards(ctx, at, snap.active.size); err != nil {
			return nil, fmt.Errorf("tail journal: %w", err)
		}
	}
	for i := len(snap.archived) - 1; i >= 0 && !t.full(); i-- {
		if err := t.segment(ctx, snap.archived[i]); err != nil {
			return nil, fmt.Errorf("tail journal: %w", err)
		}
	}
	slices.Reverse(t.recs)
	return t.recs, nil
}

// tail collects records going back through the segments.
type tail struct {
	n         int
	match     func(*Record) bool
	prefilter func([]byte) bool
	budget    int64 // bytes still allowed to read
	block     int
	recs      []Record // newest first
}

func (t *tail) full() bool { return len(t.recs) >= t.n || t.budget <= 0 }

func (t *tail) record(line []byte) (Record, bool) {
	if t.prefilter != nil && !t.prefilter(line) {
		return Record{}, false
	}
	rec, ok := decodeLine(line)
	return rec, ok && (t.match == nil || t.match(&rec))
}

// window returns the offset in a segment of size bytes before which nothing
// may be read, and charges the rest to the budget.
func (t *tail) window(size int64) int64 {
	var floor int64
	if size > t.budget {
		floor = size - t.budget
	}
	t.budget -= size - floor
	return floor
}

func (t *tail) segment(ctx context.Context, s segment) error {
	sf, err := s.open()
	if err != nil {
		return err
	}
	defer sf.Close()
	if sf.zr == nil {
		return t.backwards(ctx, sf.at, sf.size)
	}
	return t.forwards(ctx, sf.zr, sf.size)
}

// backwards collects records from the end of a file.
func (t *tail) backwards(ctx context.Context, r io.ReaderAt, size int64) error {
	b := newBackLines(r, t.window(size), size, t.block)
	for len(t.recs) < t.n {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, ok, err := b.prev()
		if err != nil || !ok {
			return err
		}
		if rec, ok := t.record(line); ok {
			t.recs = append(t.recs, rec)
		}
	}
	return nil
}

// forwards collects records from a stream that can only be read from its
// start (a compressed segment), keeping the last ones in a ring.
func (t *tail) forwards(ctx context.Context, r io.Reader, size int64) error {
	floor := t.window(size)
	need := t.n - len(t.recs)
	var ring []Record
	oldest := 0 // index in ring of the oldest record once the ring is full
	lr := newLineReader(r, t.block)
	var pos int64
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line, complete, err := lr.next()
		if err == io.EOF || (err == nil && !complete) {
			break // the segment is read; a torn last line is dropped
		}
		if err != nil {
			return err
		}
		start := pos
		pos += int64(len(line)) + 1
		if floor > 0 && start <= floor {
			continue // outside the bytes Tail may read
		}
		rec, ok := t.record(line)
		switch {
		case !ok:
		case len(ring) < need:
			ring = append(ring, rec)
		default:
			ring[oldest] = rec
			oldest = (oldest + 1) % need
		}
	}
	for i := len(ring) - 1; i >= 0; i-- {
		t.recs = append(t.recs, ring[(oldest+i)%len(ring)])
	}
	return nil
}
