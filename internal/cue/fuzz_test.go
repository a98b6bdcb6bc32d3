package cue

import (
	"testing"

	"github.com/baton-cli/baton/internal/textnorm"
)

// FuzzRecallFile: whatever the recall file holds, reading it and looking
// terms up returns entries or an error, never a panic.
func FuzzRecallFile(f *testing.F) {
	w := newWriter()
	w.add(entry{Kind: kindDecision, Text: "Use River for the job queue"}, []string{"job", "queu", "river"})
	w.add(entry{Kind: kindCommand, Key: "go test", Cmd: "go test ./..."}, []string{"$go test", "@x.go"})
	good, err := w.bytes(fixtureNow)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(header + "1\n\n"))
	f.Add([]byte(header + "1\n{}\n\njob\t16\n"))
	f.Add([]byte(header + "x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rf, err := parse(data)
		if err != nil {
			return
		}
		for _, term := range []string{"job", "queu", "river", "$go test", "@x.go", "", "zzz", "\t"} {
			offs, err := rf.lookup(term)
			if err != nil {
				continue
			}
			for _, off := range offs {
				rf.entry(off)
			}
		}
	})
}

// FuzzCommandKey: any command line gives a key without panicking, and a
// key the line is then said to run.
func FuzzCommandKey(f *testing.F) {
	for _, s := range []string{"go test ./...", "cd x && npm run build", "A=1 sudo make", "| ;;&&", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if key := CommandKey(line); key != "" && !ranKey(line, key) {
			t.Errorf("CommandKey(%q) = %q, which ranKey does not see", line, key)
		}
	})
}

// FuzzTerms: any text splits into terms without panicking.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"ﾛｰﾃｰｼｮﾝ", "internal/cue/file.go", "検索インデックス", "\xff\xfe", "a-b.c/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		terms(s, func(term) {})
		queryTerms(textnorm.Fold(s))
	})
}
