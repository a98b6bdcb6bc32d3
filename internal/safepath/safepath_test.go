package safepath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// tree makes root/a/b/ with a file root/a/b/f, and outside/ with a file
// outside/target holding "outside"; it returns root and outside.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "a", "b"), outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(root, "a", "b", "f"), "inside")
	write(t, filepath.Join(outside, "target"), "outside")
	return root, outside
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, at string) {
	t.Helper()
	if err := os.Symlink(target, at); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ops are every way into a path; each must refuse a link.
var ops = []struct {
	name string
	do   func(root, path string) error
}{
	{"OpenFile append", func(root, path string) error {
		f, err := OpenFile(root, path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err == nil {
			_, err = f.WriteString("written")
			f.Close()
		}
		return err
	}},
	{"ReadFile", func(root, path string) error { _, err := ReadFile(root, path); return err }},
	{"WriteFile", func(root, path string) error { return WriteFile(root, path, []byte("written"), 0o600) }},
	{"MkdirAll", func(root, path string) error { return MkdirAll(root, filepath.Join(path, "sub"), 0o700) }},
	{"Check", func(root, path string) error { return Check(root, path) }},
}

func TestRefusesLinks(t *testing.T) {
	cases := []struct {
		name string
		// plant makes the attack and returns the path baton would use.
		plant func(t *testing.T, root, outside string) string
		want  error // ErrLink when nil
	}{
		{"link as the file", func(t *testing.T, root, outside string) string {
			p := filepath.Join(root, "a", "b", "l")
			link(t, filepath.Join(outside, "target"), p)
			return p
		}, nil},
		{"relative link as the file", func(t *testing.T, root, outside string) string {
			p := filepath.Join(root, "a", "b", "l")
			link(t, "../../../outside/target", p)
			return p
		}, nil},
		{"link as a folder", func(t *testing.T, root, outside string) string {
			link(t, outside, filepath.Join(root, "a", "c"))
			return filepath.Join(root, "a", "c", "target")
		}, nil},
		{"link as the first folder", func(t *testing.T, root, outside string) string {
			link(t, outside, filepath.Join(root, "x"))
			return filepath.Join(root, "x", "target")
		}, nil},
		{"a file as a folder", func(t *testing.T, root, outside string) string {
			return filepath.Join(root, "a", "b", "f", "g")
		}, syscall.ENOTDIR},
		{"path leaving the root", func(t *testing.T, root, outside string) string {
			return filepath.Join(root, "..", "outside", "target")
		}, nil},
	}
	for _, c := range cases {
		for _, op := range ops {
			if op.name == "MkdirAll" && c.name == "a file as a folder" {
				continue // covered: MkdirAll's path there goes through the file too
			}
			t.Run(c.name+"/"+op.name, func(t *testing.T) {
				root, outside := tree(t)
				path := c.plant(t, root, outside)
				err := op.do(root, path)
				want := c.want
				if want == nil {
					want = ErrLink
				}
				if !errors.Is(err, want) {
					t.Errorf("%s(%s) = %v; want %v", op.name, path, err, want)
				}
				if got := read(t, filepath.Join(outside, "target")); got != "outside" {
					t.Errorf("outside file = %q; want it unchanged", got)
				}
				if _, err := os.Stat(filepath.Join(outside, "target", "sub")); err == nil {
					t.Errorf("a folder was made outside")
				}
			})
		}
	}
}

func TestWorksOnRealFolders(t *testing.T) {
	root, _ := tree(t)
	f := filepath.Join(root, "a", "b", "f")
	if b, err := ReadFile(root, f); err != nil || string(b) != "inside" {
		t.Errorf("ReadFile = %q, %v; want %q", b, err, "inside")
	}
	n := filepath.Join(root, "new", "deeper", "g")
	if err := WriteFile(root, n, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := read(t, n); got != "one" {
		t.Errorf("written file = %q; want %q", got, "one")
	}
	af, err := OpenFile(root, n, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	af.WriteString("+two")
	af.Close()
	if got := read(t, n); got != "one+two" {
		t.Errorf("appended file = %q; want %q", got, "one+two")
	}
	entries, _ := os.ReadDir(filepath.Dir(n))
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries; want 1 (no temporary file left)", len(entries))
	}
	if err := Check(root, filepath.Join(root, "missing", "x")); err != nil {
		t.Errorf("Check of a missing path = %v; want nil", err)
	}
	if _, err := ReadFile(root, filepath.Join(root, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file = %v; want fs.ErrNotExist", err)
	}
	if _, err := OpenFD(root, filepath.Join(root, "missing", "x"), os.O_RDONLY, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenFD under a missing folder = %v; want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(filepath.Join(root, "missing")); err == nil {
		t.Errorf("a read made a folder")
	}
}

// The trusted folder itself may be a link: it is the person's own.
func TestRootMayBeALink(t *testing.T) {
	root, _ := tree(t)
	alias := filepath.Join(t.TempDir(), "alias")
	link(t, root, alias)
	if b, err := ReadFile(alias, filepath.Join(alias, "a", "b", "f")); err != nil || string(b) != "inside" {
		t.Errorf("ReadFile through a linked root = %q, %v; want %q", b, err, "inside")
	}
}
