package journal

import (
	"context"
	"fmt"
	"io"
)

// Scan reads the journal forwards from the Offset from, calling fn for each
// record with the Offset just past its line, and returns the Offset to resume
// from next time: just past the last complete line it read.
//
//   - Lines that are not records are skipped; the Offset moves past them.
//   - The bytes after the last newline of the active file are left alone: they
//     are a line still being written (or torn, until the next Append ends it),
//     so the returned Offset is never inside a line.
//   - An Offset inside a line resumes at the start of the next line.
//   - An Offset in archived segments that were deleted resumes at the oldest
//     segment left.
//   - An Offset before 0 or past the end of the journal is an error wrapping
//     ErrOffset.
//
// If fn returns an error, Scan stops and returns that error with the Offset
// before that record, so the record is read again next time.
//
// Scan reads what the journal held when it started; records appended while it
// runs are for the next Scan. Starting inside a compressed segment costs a
// decompression of that segment up to from.
func (j *Journal) Scan(ctx context.Context, from Offset, fn func(rec Record, end Offset) error) (Offset, error) {
	snap, err := j.snapshot()
	if err != nil {
		return from, err
	}
	defer snap.close()

	activeStart, err := archiveEnd(snap.archived)
	if err != nil {
		return from, fmt.Errorf("scan journal: %w", err)
	}
	var activeSize int64
	if snap.active != nil {
		activeSize = snap.active.size
	}
	if end := activeStart + activeSize; from < 0 || int64(from) > end {
		return from, fmt.Errorf("scan journal from %d, end %d: %w", from, end, ErrOffset)
	}

	// The segments in order, the active file last.
	parts := make([]int64, 0, len(snap.archived)+1)
	for _, s := range snap.archived {
		parts = append(parts, s.start)
	}
	parts = append(parts, activeStart)

	sc := &scanner{fn: fn, pos: int64(from), block: j.blockSize}
	// Start in the last segment that begins at or before from.
	first := 0
	for i, start := range parts {
		if start <= sc.pos {
			first = i
		}
	}
	for i := first; i < len(parts); i++ {
		sc.pos = max(sc.pos, parts[i]) // past a gap left by a deleted segment
		if i == len(parts)-1 {
			if snap.active == nil {
				break
			}
			err = sc.segment(ctx, snap.active, activeStart, true)
		} else {
			err = sc.archived(ctx, snap.archived[i])
		}
		if err != nil {
			return Offset(sc.pos), err
		}
	}
	return Offset(sc.pos), nil
}

// scanner carries Scan's position through the segments.
type scanner struct {
	fn    func(Record, Offset) error
	pos   int64 // Offset just past the last complete line read
	block int
}

func (sc *scanner) archived(ctx context.Context, s segment) error {
	sf, err := s.open()
	if err != nil {
		return fmt.Errorf("scan journal: %w", err)
	}
	defer sf.Close()
	return sc.segment(ctx, sf, s.start, false)
}

// segment reads one segment starting at Offset start from sc.pos on. In the
// active file (last) the bytes after the last newline stay unread; elsewhere
// they are a torn line and are passed over.
func (sc *scanner) segment(ctx context.Context, sf *segmentFile, start int64, last bool) error {
	local := sc.pos - start
	if local >= sf.size {
		return nil
	}
	// Read from the byte before sc.pos: if it is a newline sc.pos starts a
	// line, otherwise the rest of the line it is in is passed over.
	at := max(local-1, 0)
	r, err := sf.readerFrom(at)
	if err != nil {
		return fmt.Errorf("scan journal: %w", err)
	}
	lr := newLineReader(r, sc.block)
	p := start + at
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line, complete, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("scan journal: %w", err)
		}
		if !complete {
			if !last {
				sc.pos = start + sf.size
			}
			return nil
		}
		p += int64(len(line)) + 1
		if i == 0 && local > 0 {
			sc.pos = p // the rest of the line from was in, or its newline alone
			continue
		}
		if rec, ok := decodeLine(line); ok {
			if err := sc.fn(rec, Offset(p)); err != nil {
				return err
			}
		}
		sc.pos = p
	}
}
