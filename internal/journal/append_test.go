package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAppendRoundTrip(t *testing.T) {
	// The state folder does not exist yet: Append creates it under the
	// repository.
	repo := t.TempDir()
	dir := filepath.Join(repo, ".claude", "session-state")
	j := Open(dir, Options{})
	recs := []Record{
		testRecord(0),
		{TS: t0, Tool: "Bash", Desc: "echo 'a\nb' && cat <x> | grep \"q\"", Prompt: "line one\r\nline two\u2028three\x00"},
		{TS: t0, File: "/tmp/日本語/ファイル.go", Message: strings.Repeat("long ", 20000)},
	}
	for _, rec := range recs {
		mustAppend(t, j, rec)
	}

	data, err := os.ReadFile(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(string(data), "\n"), len(recs); got != want {
		t.Errorf("newlines in the file: got %d; want %d (one a record)", got, want)
	}
	if !strings.Contains(string(data), `cat <x> | grep`) {
		t.Errorf("file %q: got HTML-escaped text; want it as written", data[:200])
	}
	sameRecords(t, "Tail", tailOf(t, j, 10, TailOptions{}), recs)
	got, _ := scanAll(t, j, 0)
	sameRecords(t, "Scan", scannedRecords(got), recs)

	for path, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, j.Path(): 0o600, j.lockPath(): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("mode of %s: got %v; want %v", path, fi.Mode(), want)
		}
	}
}

func TestAppendTime(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	tokyo := time.FixedZone("JST", 9*3600)
	tests := []struct {
		name string
		ts   time.Time
		want time.Time
	}{
		{"zero time gets the clock's", time.Time{}, now},
		{"local time is stored in UTC", time.Date(2026, 11, 30, 18, 0, 0, 5, tokyo), time.Date(2026, 11, 30, 9, 0, 0, 5, time.UTC)},
		{"UTC time is kept", t0, t0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Open(t.TempDir(), Options{Now: fixedClock(now)})
			mustAppend(t, j, Record{TS: tt.ts, Tool: "Edit"})
			got := tailOf(t, j, 1, TailOptions{})
			if len(got) != 1 || !got[0].TS.Equal(tt.want) || got[0].TS.Location() != time.UTC {
				t.Fatalf("got %v; want one record at %v", got, tt.want)
			}
		})
	}
}

func TestAppendAfterTornLine(t *testing.T) {
	rec := testRecord(7)
	good := line(t, testRecord(1))
	tests := []struct {
		name   string
		before string
		want   string
	}{
		{"empty file", "", line(t, rec)},
		{"file ending in a newline", good, good + line(t, rec)},
		{"torn last line", good + `{"ts":"2026-11-29T18:3`, good + `{"ts":"2026-11-29T18:3` + "\n" + line(t, rec)},
		{"record without its newline", strings.TrimSuffix(good, "\n"), good + line(t, rec)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Open(t.TempDir(), Options{})
			writeActive(t, j, tt.before)
			mustAppend(t, j, rec)
			data, err := os.ReadFile(j.Path())
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tt.want {
				t.Fatalf("file: got %q; want %q", data, tt.want)
			}
			got := tailOf(t, j, 1, TailOptions{})
			sameRecords(t, "Tail", got, []Record{rec})
		})
	}
}

func TestAppendBatchKeepsOrder(t *testing.T) {
	j := Open(t.TempDir(), Options{})
	mustAppend(t, j, testRecords(0, 3)...)
	mustAppend(t, j, testRecords(3, 5)...)
	mustAppend(t, j)
	data, err := os.ReadFile(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	if want := lines(t, testRecords(0, 5)); string(data) != want {
		t.Fatalf("file: got %q; want %q", data, want)
	}
}

func TestAppendErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the state folder
		rec   Record
	}{
		{"state folder is a file", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "state")
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return path
		}, testRecord(0)},
		{"active file is a folder", func(t *testing.T, dir string) string {
			if err := os.Mkdir(filepath.Join(dir, ActiveName), 0o700); err != nil {
				t.Fatal(err)
			}
			return dir
		}, testRecord(0)},
		{"time that JSON cannot hold", func(t *testing.T, dir string) string { return dir },
			Record{TS: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Open(tt.setup(t, t.TempDir()), Options{})
			if err := j.Append(tt.rec); err == nil {
				t.Fatal("Append: got no error; want one")
			}
		})
	}
}
