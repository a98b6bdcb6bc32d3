package usage

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// asst writes an assistant line the way Claude Code does.
func asst(ts, session, msg, req, model string, side bool, in, out, create, read int) string {
	reqField := ""
	if req != "" {
		reqField = fmt.Sprintf(`"requestId":%q,`, req)
	}
	return fmt.Sprintf(`{"parentUuid":"p","isSidechain":%t,"userType":"external","cwd":"/w","sessionId":%q,"version":"2.1.328",`+
		`"type":"assistant",%s"message":{"id":%q,"type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"hi"}],`+
		`"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}},"uuid":"u","timestamp":%q}`,
		side, session, reqField, msg, model, in, create, read, out, ts)
}

func writeFile(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// handMade is a small project whose totals were worked out by hand:
//
//	s1 msg_a req_a   two block lines, 100/5/10/1000 then 100/50/10/1000: counted once, the larger: 100/50/10/1000
//	s1 msg_b req_b   200/20/0/0, and its sidechain replay (req_x, 900 in): replay dropped
//	s1 msg_c (no req) same time twice: once, 7/3/0/0; a third at another time: again, 7/3/0/0
//	s2 msg_a req_a   copy of s1's response in a resumed session: dropped
//	s2 msg_d req_d   sidechain-only response of its own: 11/1/0/0 counted
//	s2 msg_e req_e   next day, other model: 1000/100/0/500
//	no id            3/1/0/0 counted each time (twice)
//	malformed lines, a user line, a line with a bad timestamp: skipped
//
// Day 2026-09-01: in 100+200+7+7+11+3+3 = 331, out 50+20+3+3+1+1+1 = 79,
// create 10, read 1000. Day 2026-09-02: 1000/100/0/500.
func handMade(t *testing.T) string {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-w")
	writeFile(t, filepath.Join(proj, "s1.jsonl"),
		`{"type":"user","sessionId":"s1","timestamp":"2026-09-01T10:00:00.000Z","message":{"role":"user","content":"go"}}`,
		asst("2026-09-01T10:00:01.000Z", "s1", "msg_a", "req_a", "claude-sonnet-4-5", false, 100, 5, 10, 1000),
		asst("2026-09-01T10:00:02.000Z", "s1", "msg_a", "req_a", "claude-sonnet-4-5", false, 100, 50, 10, 1000),
		`{"type":"assistant","message":{"usage":{"input_tokens":`, // torn
		asst("2026-09-01T10:01:00.000Z", "s1", "msg_b", "req_b", "claude-sonnet-4-5", false, 200, 20, 0, 0),
		asst("2026-09-01T10:02:00.000Z", "s1", "msg_b", "req_x", "claude-sonnet-4-5", true, 900, 20, 0, 0),
		asst("2026-09-01T10:03:00.000Z", "s1", "msg_c", "", "claude-sonnet-4-5", false, 7, 3, 0, 0),
		asst("2026-09-01T10:03:00.000Z", "s1", "msg_c", "", "claude-sonnet-4-5", false, 7, 3, 0, 0),
		asst("2026-09-01T10:04:00.000Z", "s1", "msg_c", "", "claude-sonnet-4-5", false, 7, 3, 0, 0),
		asst("2026-09-01T10:05:00.5Z", "s1", "msg_z", "req_z", "claude-sonnet-4-5", false, 5000, 0, 0, 0), // one fraction digit
		`not json at all`,
		`{"type":"assistant","sessionId":"s1","timestamp":"2026-09-01T10:06:00.000Z","message":{"model":"claude-haiku-4-5","usage":{"input_tokens":3,"output_tokens":1}}}`,
		`{"type":"assistant","sessionId":"s1","timestamp":"2026-09-01T10:06:00.000Z","message":{"model":"claude-haiku-4-5","usage":{"input_tokens":3,"output_tokens":1}}}`,
	)
	writeFile(t, filepath.Join(proj, "s2.jsonl"),
		asst("2026-09-01T10:00:02.000Z", "s2", "msg_a", "req_a", "claude-sonnet-4-5", false, 100, 50, 10, 1000),
		asst("2026-09-01T11:00:00.000Z", "s2", "msg_d", "req_d", "claude-sonnet-4-5", true, 11, 1, 0, 0),
		asst("2026-09-02T09:00:00.000+09:00", "s2", "msg_e", "req_e", "claude-opus-4-1", false, 1000, 100, 0, 500),
		asst("2026-09-02T12:00:00.000Z", "s2", "msg_f", "req_f", "", false, 1, 1, 1, 1), // empty model: not a record
	)
	return filepath.Join(dir, "projects")
}

func TestScanHandMade(t *testing.T) {
	dir := handMade(t)
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantDay1 := Tokens{Input: 331, Output: 79, CacheCreation: 10, CacheRead: 1000}
	wantDay2 := Tokens{Input: 1000, Output: 100, CacheRead: 500}
	wantTotal := Tokens{Input: 1331, Output: 179, CacheCreation: 10, CacheRead: 1500}
	tokyo := time.FixedZone("JST", 9*3600)
	tests := []struct {
		name     string
		opts     Options
		wantKeys []string
		wantRows []Tokens
		total    Tokens
	}{
		{name: "daily", opts: Options{}, wantKeys: []string{"2026-09-01", "2026-09-02"}, wantRows: []Tokens{wantDay1, wantDay2}, total: wantTotal},
		// 09:00 in Tokyo on the 2nd is midnight UTC: the same days.
		{name: "daily in Tokyo", opts: Options{Loc: tokyo}, wantKeys: []string{"2026-09-01", "2026-09-02"}, wantRows: []Tokens{wantDay1, wantDay2}, total: wantTotal},
		{name: "monthly", opts: Options{By: Monthly}, wantKeys: []string{"2026-09"}, wantRows: []Tokens{wantTotal}, total: wantTotal},
		{name: "session", opts: Options{By: Session}, wantKeys: []string{"s1", "s2"},
			wantRows: []Tokens{{Input: 320, Output: 78, CacheCreation: 10, CacheRead: 1000}, {Input: 1011, Output: 101, CacheRead: 500}}, total: wantTotal},
		{name: "since", opts: Options{Since: time.Date(2026, 9, 2, 0, 0, 0, 0, time.UTC)}, wantKeys: []string{"2026-09-02"}, wantRows: []Tokens{wantDay2}, total: wantDay2},
		{name: "tiny chunks", opts: Options{ChunkSize: 7, Workers: 3}, wantKeys: []string{"2026-09-01", "2026-09-02"}, wantRows: []Tokens{wantDay1, wantDay2}, total: wantTotal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Scan(context.Background(), files, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Total != tt.total {
				t.Errorf("total = %+v; want %+v", r.Total, tt.total)
			}
			if len(r.Rows) != len(tt.wantKeys) {
				t.Fatalf("rows = %+v; want keys %v", r.Rows, tt.wantKeys)
			}
			for i, row := range r.Rows {
				if row.Key != tt.wantKeys[i] || row.Tokens != tt.wantRows[i] {
					t.Errorf("row %d = %s %+v; want %s %+v", i, row.Key, row.Tokens, tt.wantKeys[i], tt.wantRows[i])
				}
			}
		})
	}
}

func TestScanModels(t *testing.T) {
	files, err := Files(handMade(t))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Scan(context.Background(), files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(r.Rows[0].Models)
	want := "[{claude-sonnet-4-5 {325 77 10 0 1000} <nil>} {claude-haiku-4-5 {6 2 0 0 0} <nil>}]"
	if got != want {
		t.Errorf("day 1 models = %s; want %s", got, want)
	}
	if r.Responses != 8 {
		t.Errorf("responses = %d; want 8", r.Responses)
	}
}

// An archived, compressed transcript counts as the original did, and a copy
// of a response in both is counted once.
func TestScanArchive(t *testing.T) {
	dir := t.TempDir()
	line := asst("2026-09-01T10:00:01.000Z", "s1", "msg_a", "req_a", "m", false, 100, 5, 10, 1000)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	fmt.Fprintln(zw, line)
	fmt.Fprintln(zw, asst("2026-09-01T10:00:02.000Z", "s1", "msg_old", "req_old", "m", false, 1, 1, 1, 1))
	zw.Close()
	if err := os.MkdirAll(filepath.Join(dir, "archive"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "archive", "s1.jsonl.gz"), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "live", "s1.jsonl"), line)
	files, err := Files(filepath.Join(dir, "live"), filepath.Join(dir, "archive"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Scan(context.Background(), files, Options{By: Session})
	if err != nil {
		t.Fatal(err)
	}
	want := Tokens{Input: 101, Output: 6, CacheCreation: 11, CacheRead: 1001}
	if r.Total != want || len(r.Rows) != 1 || r.Rows[0].Key != "s1" {
		t.Errorf("got %+v %+v; want total %+v in one row s1", r.Total, r.Rows, want)
	}
}

func TestSessionOf(t *testing.T) {
	tests := []struct{ name, path, want string }{
		{name: "transcript", path: "/p/-w/abc.jsonl", want: "abc"},
		{name: "subagent", path: "/p/-w/abc/subagents/agent-1.jsonl", want: "abc"},
		{name: "archived", path: "/s/archive/transcripts/-w/abc.jsonl.gz", want: "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SessionOf(tt.path); got != tt.want {
				t.Errorf("SessionOf(%q) = %q; want %q", tt.path, got, tt.want)
			}
		})
	}
}

func TestParseLine(t *testing.T) {
	ok := asst("2026-09-01T10:00:00.000Z", "s", "msg_1", "req_1", "m", false, 3, 1, 0, 0)
	tests := []struct {
		name string
		line string
		want bool
		in   int64
	}{
		{name: "usual", line: ok, want: true, in: 3},
		{name: "CRLF", line: ok + "\r", want: true, in: 3},
		{name: "trailing garbage", line: ok + "x", want: false},
		{name: "space before brace", line: strings.Replace(ok, `"usage":{`, `"usage": {`, 1), want: true, in: 3},
		{name: "spaces around colon", line: strings.Replace(ok, `"usage":{`, `"usage" :  {`, 1), want: true, in: 3},
		{name: "spaced everywhere", line: strings.NewReplacer(`":`, `": `, `,"`, `, "`).Replace(ok), want: true, in: 3},
		{name: "usage as a plain value", line: strings.Replace(ok, `"usage":{`, `"x":"usage","usage_":{`, 1), want: false},
		{name: "micro seconds", line: strings.Replace(ok, ".000Z", ".000000Z", 1), want: false},
		{name: "offset", line: strings.Replace(ok, ".000Z", ".000+09:00", 1), want: true, in: 3},
		{name: "no such day", line: strings.Replace(ok, "2026-09-01", "2026-02-30", 1), want: false},
		{name: "negative tokens", line: strings.Replace(ok, `"input_tokens":3`, `"input_tokens":-3`, 1), want: false},
		{name: "fraction tokens", line: strings.Replace(ok, `"input_tokens":3`, `"input_tokens":3.0`, 1), want: false},
		{name: "output missing", line: strings.Replace(ok, `,"output_tokens":1`, ``, 1), want: false},
		{name: "null cwd", line: strings.Replace(ok, `"cwd":"/w"`, `"cwd":null`, 1), want: false},
		{name: "null elsewhere", line: strings.Replace(ok, `"cwd":"/w"`, `"cwd":"/w","x":null`, 1), want: true, in: 3},
		{name: "null model deep inside", line: strings.Replace(ok, `"text":"hi"`, `"text":"hi","input":{"model" : null}`, 1), want: false},
		{name: "bad version", line: strings.Replace(ok, `"2.1.328"`, `"dev"`, 1), want: false},
		{name: "duplicate timestamp", line: strings.Replace(ok, `"uuid":"u"`, `"timestamp":"2026-09-01T10:00:00.000Z"`, 1), want: false},
		{name: "control character", line: strings.Replace(ok, `"hi"`, "\"h\ti\"", 1), want: false},
		{name: "escaped ids", line: strings.Replace(ok, `"req_1"`, `"req\u005f1"`, 1), want: true, in: 3},
		{name: "cache breakdown wins", line: strings.Replace(ok, `"output_tokens":1`, `"output_tokens":1,"cache_creation":{"ephemeral_5m_input_tokens":2}`, 1), want: true, in: 3},
		{name: "unknown speed", line: strings.Replace(ok, `"output_tokens":1`, `"output_tokens":1,"speed":"turbo"`, 1), want: false},
		{name: "progress line", line: `{"type":"progress","sessionId":"s","data":{"message":{"timestamp":"2026-09-01T10:00:00.000Z","requestId":"r","message":{"id":"msg_9","model":"m","usage":{"input_tokens":4,"output_tokens":1}}}}}`, want: true, in: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, got := parseLine([]byte(tt.line))
			if got != tt.want {
				t.Fatalf("parseLine ok = %v; want %v\n%s", got, tt.want, tt.line)
			}
			if got && l.tokens.Input != tt.in {
				t.Errorf("input = %d; want %d", l.tokens.Input, tt.in)
			}
		})
	}
}

func TestScanMissingFile(t *testing.T) {
	_, err := Scan(context.Background(), []string{filepath.Join(t.TempDir(), "gone.jsonl")}, Options{})
	if err == nil {
		t.Fatal("Scan of a missing file: no error")
	}
}

// A line longer than the reader's first buffer is read whole.
func TestScanLongLine(t *testing.T) {
	dir := t.TempDir()
	long := strings.Replace(asst("2026-09-01T10:00:00.000Z", "s", "msg_1", "req_1", "m", false, 3, 1, 0, 0),
		`"hi"`, `"`+strings.Repeat("x", 3<<20)+`"`, 1)
	writeFile(t, filepath.Join(dir, "s.jsonl"), long, asst("2026-09-01T10:00:00.000Z", "s", "msg_2", "req_2", "m", false, 5, 1, 0, 0))
	r, err := Scan(context.Background(), []string{filepath.Join(dir, "s.jsonl")}, Options{ChunkSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if r.Total.Input != 8 {
		t.Errorf("input = %d; want 8", r.Total.Input)
	}
}
