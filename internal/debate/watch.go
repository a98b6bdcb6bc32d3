package debate

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
)

// Watch hands debate id's rounds off as soon as both sides have written
// them, so the agents only need to write their files. It watches the folder
// (writers replace files by renaming), tries a hand-off after each change to
// one of the debate's files, reports every outcome to report, and returns
// when the debate has ended or ctx is done.
func (d Dir) Watch(ctx context.Context, id string, tr Transport, report func(Result)) error {
	p, err := d.Paths(id)
	if err != nil {
		return err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return wrapf(err, "watch debate")
	}
	defer w.Close()
	folder := filepath.Dir(p.Main)
	if err := w.Add(folder); err != nil {
		return wrapf(err, "watch %s", folder)
	}
	ours := map[string]bool{p.Main: true, p.Pro: true, p.Con: true}

	last := Result{}
	for {
		res, err := d.Reply(ctx, id, tr)
		var gone *PaneGoneError
		if errors.As(err, &gone) {
			// The person starts the side again (resume-pane, which
			// changes the main file) or ends the debate; both end the
			// wait below.
			s, lerr := d.Load(id)
			if lerr != nil {
				return errors.Join(err, lerr)
			}
			res, err = Result{Kind: Undelivered, Session: s, Gone: gone}, nil
		}
		if err != nil {
			return err
		}
		// Report changes, not every write a side makes while it waits.
		if res.Kind != last.Kind || res.Round != last.Round || res.WaitingFor != last.WaitingFor || len(res.Sent) > 0 || res.Gone != nil && (last.Gone == nil || *res.Gone != *last.Gone) {
			report(res)
		}
		last = res
		if res.Kind == NotActive || res.Kind == Ended {
			return nil
		}
		if res.Kind == HandedOff && len(res.Sent) == 0 {
			// Both sides had written ahead: the next round is complete.
			continue
		}
		if err := waitChange(ctx, w, ours); err != nil {
			return err
		}
	}
}

// waitChange blocks until one of the files changes, then takes every other
// event already queued, so a burst of writes costs one hand-off attempt.
func waitChange(ctx context.Context, w *fsnotify.Watcher, files map[string]bool) error {
	relevant := func(ev fsnotify.Event) bool {
		return files[filepath.Clean(ev.Name)] && ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename) != 0
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-w.Errors:
			return wrapf(err, "watch debate")
		case ev := <-w.Events:
			if !relevant(ev) {
				continue
			}
			for {
				select {
				case <-w.Events:
				default:
					return nil
				}
			}
		}
	}
}
