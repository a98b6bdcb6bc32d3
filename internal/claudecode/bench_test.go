package claudecode

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func readFixture(b *testing.B, name string) []byte {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "hooks", name))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkApplyInstall is the in-memory work of an install: parse, merge,
// format.
func BenchmarkApplyInstall(b *testing.B) {
	data := readFixture(b, "user-hooks.json")
	install := installHooks(DefaultHookCommand, HookEvents(), HookTimeout)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, _, err := apply("settings.json", data, install); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInstallHooksUnchanged is a repeated `baton init`: lock, read,
// find every hook present, write nothing.
func BenchmarkInstallHooksUnchanged(b *testing.B) {
	path := writeSettings(b, readFixture(b, "user-hooks.installed.golden"))
	ctx := context.Background()
	for b.Loop() {
		ch, err := InstallHooks(ctx, path, DefaultHookCommand)
		if err != nil || !ch.Unchanged {
			b.Fatalf("got %+v, %v; want unchanged", ch, err)
		}
	}
}

// BenchmarkInstallUninstallHooks writes the file twice per iteration, each
// time with fsync of the file and its folder.
func BenchmarkInstallUninstallHooks(b *testing.B) {
	path := writeSettings(b, readFixture(b, "user-hooks.json"))
	ctx := context.Background()
	for b.Loop() {
		if _, err := InstallHooks(ctx, path, DefaultHookCommand); err != nil {
			b.Fatal(err)
		}
		if _, err := UninstallHooks(ctx, path, DefaultHookCommand); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHooksInstalled is what `baton doctor` pays per settings file.
func BenchmarkHooksInstalled(b *testing.B) {
	path := writeSettings(b, readFixture(b, "user-hooks.installed.golden"))
	ctx := context.Background()
	for b.Loop() {
		if _, err := HooksInstalled(ctx, path, DefaultHookCommand); err != nil {
			b.Fatal(err)
		}
	}
}
