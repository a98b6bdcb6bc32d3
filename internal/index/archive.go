package index

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/renameio/v2"

	"github.com/baton-cli/baton/internal/safepath"
)

// ArchiveResult says what ArchiveTranscripts did.
type ArchiveResult struct {
	// Copied are the transcripts written (new or changed); Unchanged the
	// ones whose copy was up to date.
	Copied    []string `json:"copied"`
	Unchanged int      `json:"unchanged"`
	// Bytes is the size of the transcripts copied, before compression.
	Bytes int64 `json:"bytes"`
	// Failed are the transcripts that could not be copied, with why.
	Failed []string `json:"failed,omitempty"`
}

// archiveComment marks the copies written by ArchiveTranscripts, with the
// size of the transcript copied.
const archiveComment = "baton archive size="

// ArchiveTranscripts keeps a compressed copy of every transcript under dirs
// in dest: <dest>/<dir's name>/<path under dir>.gz, so that Claude Code's own
// cleanup of old transcripts loses nothing. A copy whose transcript has not
// changed (same size and time) is left alone; a changed one is replaced
// atomically, so a reader sees the old copy or the new one, never a part.
// One transcript that cannot be copied does not stop the others. dest lies
// under root, the folder holding the state folder (state.Dir.Base): a copy
// whose path goes through a link below root is refused (safepath.ErrLink).
func ArchiveTranscripts(ctx context.Context, dirs []string, root, dest string) (ArchiveResult, error) {
	var res ArchiveResult
	err := eachTranscript(ctx, dirs, dest, func(path, to string, _ fs.DirEntry) error {
		copied, n, err := archiveOne(path, root, to)
		switch {
		case err != nil:
			res.Failed = append(res.Failed, fmt.Sprintf("%s: %v", path, err))
		case copied:
			res.Copied = append(res.Copied, path)
			res.Bytes += n
		default:
			res.Unchanged++
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("archive transcripts: %w", err)
	}
	return res, nil
}

// eachTranscript calls fn with every transcript under dirs and the path of
// its copy in dest (<dest>/<dir's name>/<path under dir>.gz). A folder that
// does not exist has none.
func eachTranscript(ctx context.Context, dirs []string, dest string, fn func(path, to string, d fs.DirEntry) error) error {
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			if !d.Type().IsRegular() || !strings.HasSuffix(path, ".jsonl") {
				return nil
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			return fn(path, filepath.Join(dest, filepath.Base(dir), rel+".gz"), d)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// archiveOne copies one transcript when its copy is missing or stale.
func archiveOne(from, root, to string) (copied bool, n int64, err error) {
	if err := safepath.Check(root, to); err != nil {
		return false, 0, err
	}
	src, err := os.Open(from)
	if err != nil {
		return false, 0, err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return false, 0, err
	}
	if upToDate(to, fi) {
		return false, 0, nil
	}
	if err := safepath.MkdirAll(root, filepath.Dir(to), 0o755); err != nil {
		return false, 0, err
	}
	pf, err := renameio.NewPendingFile(to, renameio.WithPermissions(0o600))
	if err != nil {
		return false, 0, err
	}
	defer pf.Cleanup()
	zw, err := gzip.NewWriterLevel(pf, gzip.DefaultCompression)
	if err != nil {
		return false, 0, err
	}
	zw.Header.Name = filepath.Base(from)
	zw.Header.ModTime = fi.ModTime()
	zw.Header.Comment = archiveComment + strconv.FormatInt(fi.Size(), 10)
	// Only what the transcript held when it was looked at: a session still
	// writing adds lines the next archive run copies.
	n, err = io.Copy(zw, io.LimitReader(bufio.NewReaderSize(src, 1<<20), fi.Size()))
	if err != nil {
		return false, 0, err
	}
	if err := zw.Close(); err != nil {
		return false, 0, err
	}
	if err := pf.CloseAtomicallyReplace(); err != nil {
		return false, 0, err
	}
	// The copy carries the transcript's time, to tell later whether it
	// changed.
	if err := os.Chtimes(to, fi.ModTime(), fi.ModTime()); err != nil {
		return true, n, err
	}
	return true, n, nil
}

// upToDate reports whether the copy at to was made from a transcript of fi's
// size and time.
func upToDate(to string, fi fs.FileInfo) bool {
	f, err := os.Open(to)
	if err != nil {
		return false
	}
	defer f.Close()
	afi, err := f.Stat()
	if err != nil || !afi.ModTime().Equal(fi.ModTime()) {
		return false
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return false
	}
	size, ok := strings.CutPrefix(zr.Header.Comment, archiveComment)
	return ok && size == strconv.FormatInt(fi.Size(), 10) && zr.Header.ModTime.Unix() == fi.ModTime().Truncate(time.Second).Unix()
}

// Unarchived counts the transcripts under dirs last written before cutoff
// whose copy in dest is missing or stale: the ones Claude Code's cleanup is
// about to delete with nothing kept. oldest is the earliest time among them.
func Unarchived(ctx context.Context, dirs []string, dest string, cutoff time.Time) (n int, oldest time.Time, err error) {
	err = eachTranscript(ctx, dirs, dest, func(_, to string, d fs.DirEntry) error {
		fi, err := d.Info()
		if err != nil || !fi.ModTime().Before(cutoff) || upToDate(to, fi) {
			return nil
		}
		n++
		if oldest.IsZero() || fi.ModTime().Before(oldest) {
			oldest = fi.ModTime()
		}
		return nil
	})
	if err != nil {
		return n, oldest, fmt.Errorf("look for unarchived transcripts: %w", err)
	}
	return n, oldest, nil
}
