package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/safepath"
)

// Status line commands baton installs: the lean program's when it is on
// PATH, else the main program's; settings shared with the team get one that
// picks between them on each machine.
const (
	StatusLineProgram = HookProgram + " statusline"
	StatusLineDefault = "baton statusline"
	StatusLineShared  = "command -v baton-hook >/dev/null 2>&1 && exec baton-hook statusline || exec baton statusline"
)

// ErrOwnStatusLine means the settings already have a status line that is
// not baton's: it is replaced only when forced.
var ErrOwnStatusLine = errors.New("the settings have a status line of their own")

// IsBatonStatusLine reports whether a statusLine command is one baton
// installs.
func IsBatonStatusLine(command string) bool {
	switch strings.TrimSpace(command) {
	case StatusLineProgram, StatusLineDefault, StatusLineShared:
		return true
	}
	return false
}

// statusLineValue is the statusLine setting baton writes.
func statusLineValue(command string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "command", "command": command, "padding": 0})
	return b
}

// InstallStatusLine sets the statusLine of the settings file path to
// command. A status line of the person's own is kept and ErrOwnStatusLine
// returned, unless force is set: then its value is first saved in the file
// savePath (no link followed below saveRoot; "" trusts the whole path), so
// that UninstallStatusLine puts it back. Added is ["statusLine"] when the
// file changed.
func InstallStatusLine(ctx context.Context, path, saveRoot, savePath, command string, force bool) (Change, error) {
	return editFile(ctx, path, true, func(d *document) (added, _ []string, err error) {
		if n, ok := d.root.get("statusLine"); ok {
			cur := statusLineCommand(n.raw)
			if cur == command {
				return nil, nil, nil
			}
			if !IsBatonStatusLine(cur) {
				if !force {
					return nil, nil, fmt.Errorf("%s: %w", path, ErrOwnStatusLine)
				}
				if err := atomicfile.WriteIn(saveRoot, savePath, append(bytes.Clone(n.raw), '\n'), 0o600); err != nil {
					return nil, nil, fmt.Errorf("save the status line being replaced: %w", err)
				}
			}
		}
		d.root.set("statusLine", statusLineValue(command))
		return []string{"statusLine"}, nil, nil
	})
}

// UninstallStatusLine removes baton's statusLine from the settings file
// path and puts back the one saved in savePath, if any (then removes that
// file). A status line that is not baton's is left alone. Removed is
// ["statusLine"] when the file changed.
func UninstallStatusLine(ctx context.Context, path, saveRoot, savePath string) (Change, error) {
	var saved []byte
	var err error
	if saveRoot == "" {
		saved, err = os.ReadFile(savePath)
	} else {
		saved, err = safepath.ReadFile(saveRoot, savePath)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Change{Path: path}, fmt.Errorf("read the saved status line: %w", err)
	}
	ch, err := editFile(ctx, path, false, func(d *document) (_, removed []string, err error) {
		n, ok := d.root.get("statusLine")
		if !ok || !IsBatonStatusLine(statusLineCommand(n.raw)) {
			return nil, nil, nil
		}
		if saved = bytes.TrimSpace(saved); len(saved) > 0 && json.Valid(saved) {
			d.root.set("statusLine", saved)
		} else {
			d.root.remove("statusLine")
		}
		return nil, []string{"statusLine"}, nil
	})
	if err == nil && len(ch.Removed) > 0 {
		if err := os.Remove(savePath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return ch, err
		}
	}
	return ch, err
}

// statusLineCommand is the command of a statusLine value, "" when it has
// none.
func statusLineCommand(raw []byte) string {
	var v struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v.Command
}
