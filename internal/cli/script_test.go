package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/baton-cli/baton/internal/hookcmd"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"baton":      func() { os.Exit(Main(context.Background(), os.Args[1:], System())) },
		"baton-hook": func() { os.Exit(hookcmd.Main(context.Background(), os.Args[1:], hookcmd.System())) },
	})
}

// TestScripts runs the CLI behaviour scripts in testdata/script: each runs the
// real command (this test binary acting as baton) in a fresh folder with its
// own HOME and git configuration.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
			env.Setenv("LANG", "en_US.UTF-8")
			env.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(env.WorkDir, ".gitconfig"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_AUTHOR_NAME", "t")
			env.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "t")
			env.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
			return os.MkdirAll(home, 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"repeat": cmdRepeat,
			"expand": cmdExpand,
		},
	})
}

// cmdExpand copies a file with $WORK replaced by the script's work folder
// (and nothing else: "$rewindTo" in a file stays): expand src dst.
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand src dst")
	}
	data := ts.ReadFile(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(ts.MkAbs(args[1])), 0o755))
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.ReplaceAll(data, "$WORK", ts.Getenv("WORK"))), 0o644))
}

// cmdRepeat writes a file of many lines: repeat N file line, each line with
// %d replaced by its number, from 0.
func cmdRepeat(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: repeat N file line")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("repeat: %v", err)
	}
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.ReplaceAll(args[2], "%d", strconv.Itoa(i)))
		b.WriteByte('\n')
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}
