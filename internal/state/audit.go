package state

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/safepath"
)

// maxAuditLinks is how many links Audit names.
const maxAuditLinks = 5

// Audit says what makes the state folder untrustworthy: whether git tracks
// anything in it (repo is nil outside git), which came with a clone, and
// the symbolic links on the way to it or inside it (the first few, by
// path), which baton refuses to follow. A missing folder has neither.
func (d Dir) Audit(ctx context.Context, repo *gitrepo.Repo) (tracked bool, links []string, err error) {
	if err := d.Check(); errors.Is(err, safepath.ErrLink) {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			links = append(links, pe.Path)
		}
		return false, links, nil
	} else if err != nil {
		return false, nil, err
	}
	if _, err := os.Lstat(d.Root); errors.Is(err, fs.ErrNotExist) {
		return false, nil, nil
	}
	if repo != nil {
		if tracked, err = repo.Tracked(ctx, d.Root); err != nil {
			return false, nil, err
		}
	}
	err = filepath.WalkDir(d.Root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type()&fs.ModeSymlink != 0 {
			links = append(links, path)
			if len(links) == maxAuditLinks {
				return filepath.SkipAll
			}
		}
		return nil
	})
	return tracked, links, err
}
