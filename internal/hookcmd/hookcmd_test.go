package hookcmd

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestBatonBeside(t *testing.T) {
	dir := t.TempDir()
	hookExe := filepath.Join(dir, "baton-hook")
	onPath := "/somewhere/on/path/baton"
	lookPath := func(name string) (string, error) {
		if name != "baton" {
			t.Errorf("lookPath(%q); want baton", name)
		}
		return onPath, nil
	}
	write := func(name string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		setup func()
		exe   func() (string, error)
		want  string
	}{
		{name: "nothing beside: PATH", setup: func() {}, exe: func() (string, error) { return hookExe, nil }, want: onPath},
		{name: "not executable beside: PATH", setup: func() { write("baton", 0o644) }, exe: func() (string, error) { return hookExe, nil }, want: onPath},
		{name: "executable beside", setup: func() { write("baton", 0o755) }, exe: func() (string, error) { return hookExe, nil }, want: filepath.Join(dir, "baton")},
		{name: "own path unknown: PATH", setup: func() {}, exe: func() (string, error) { return "", errors.New("no /proc") }, want: onPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(filepath.Join(dir, "baton"))
			tt.setup()
			got, err := batonBeside(tt.exe, lookPath)()
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
