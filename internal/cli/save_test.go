package cli

import (
	"slices"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		err      bool
	}{
		{name: "one word", in: "vim", want: []string{"vim"}},
		{name: "arguments", in: "code --wait  -n", want: []string{"code", "--wait", "-n"}},
		{name: "tabs and ends", in: "\tnano  -w ", want: []string{"nano", "-w"}},
		{name: "single quotes keep everything", in: `'/opt/my editor/ed' '-c "x"'`, want: []string{"/opt/my editor/ed", `-c "x"`}},
		{name: "double quotes and escapes", in: `sed -e "s/a b/\"c\"/" x\ y`, want: []string{"sed", "-e", `s/a b/"c"/`, "x y"}},
		{name: "backslash kept before other characters in double quotes", in: `"a\nb"`, want: []string{`a\nb`}},
		{name: "quotes join a word", in: `a'b c'"d"e`, want: []string{"ab cde"}},
		{name: "empty quoted argument", in: `ed ''`, want: []string{"ed", ""}},
		{name: "no expansion", in: `ed $HOME ~ *`, want: []string{"ed", "$HOME", "~", "*"}},
		{name: "unterminated single", in: `ed 'x`, err: true},
		{name: "unterminated double", in: `ed "x`, err: true},
		{name: "blank", in: "  ", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := splitArgs(tt.in)
			if tt.err {
				if err == nil {
					t.Fatalf("splitArgs(%q) = %q; want an error", tt.in, got)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("splitArgs(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestEditorCommand(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"EDITOR first", map[string]string{"EDITOR": "nano -w", "VISUAL": "code --wait"}, []string{"nano", "-w"}},
		{"VISUAL when EDITOR is unset", map[string]string{"VISUAL": "code --wait"}, []string{"code", "--wait"}},
		{"vi by default", nil, []string{"vi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := editorCommand(func(k string) string { return tt.env[k] })
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("editorCommand = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
