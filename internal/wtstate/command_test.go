package wtstate

import "testing"

// TestCommandKey: the program and subcommand of a line's first command,
// as the recall of failures groups them (package cue).
func TestCommandKey(t *testing.T) {
	tests := []struct{ line, want string }{
		{"go test ./...", "go test"},
		{"go test -run TestX ./internal/x", "go test"},
		{"/usr/local/go/bin/go vet ./...", "go vet"},
		{"cd web && npm run build", "npm run"},
		{"CGO_ENABLED=0 go build -o bin/ ./cmd/...", "go build"},
		{"sudo env FOO=1 make migrate", "make migrate"},
		{"make", "make"},
		{"python3 scripts/gen.py --out x", "gen.py"},
		{"./deploy.sh staging", "deploy.sh staging"},
		{"DB_URL=postgres://db/x ./deploy.sh staging", "deploy.sh staging"},
		{"sh ./deploy.sh staging", "deploy.sh staging"},
		{"bash -x scripts/deploy.sh staging", "deploy.sh staging"},
		{`bash -c "go test ./..."`, "go test"},
		{"sh -c 'make migrate'", "make migrate"},
		{"node", "node"},
		{"ls -la", "ls"},
		{"git push origin HEAD", "git push"},
		{"  ", ""},
		{"cd /tmp", ""},
		{"go test ./... | tail -5", "go test"},
		{"sudo -E npm run build", "npm run"},
		{"export X=1 && ./deploy.sh staging", "deploy.sh staging"},
	}
	for _, tt := range tests {
		if got := CommandKey(tt.line); got != tt.want {
			t.Errorf("CommandKey(%q) = %q; want %q", tt.line, got, tt.want)
		}
	}
}

// TestSameCommand: the same line, the variables and wrappers before its
// programs aside, as a failing command is closed by the one that works.
func TestSameCommand(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"./deploy.sh staging", "./deploy.sh staging", true},
		{"./deploy.sh staging", "DB_URL=postgres://db/x ./deploy.sh staging", true},
		{"./deploy.sh staging", "A=1 B=2 sudo ./deploy.sh staging", true},
		{"./deploy.sh staging", "sh ./deploy.sh staging", true},
		{"./deploy.sh staging", "./deploy.sh prod", false},
		{"./deploy.sh staging", "./other/deploy.sh staging", false},
		{"go test ./a", "go test ./b", false},
		{"cd web && npm run build", "cd api && npm run build", false},
		{"export FOO=1 && make", "export FOO=2 && make", false},
		{"make", "make test", false},
	}
	for _, tt := range tests {
		if got := SameCommand(tt.a, tt.b); got != tt.want {
			t.Errorf("SameCommand(%q, %q) = %v; want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
