package local

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/tracker"
)

func open(t *testing.T, path string, now func() time.Time) *Tracker {
	t.Helper()
	tr, err := Open(context.Background(), path, Options{Author: "alice", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// clock returns a clock that moves one second per reading.
func clock() func() time.Time {
	t := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(time.Second)
		return t
	}
}

func numbers(list []*tracker.Issue) []int {
	var out []int
	for _, is := range list {
		out = append(out, is.Number)
	}
	return out
}

func TestIssues(t *testing.T) {
	ctx := context.Background()
	tr := open(t, filepath.Join(t.TempDir(), "state", FileName), clock())

	one, err := tr.CreateIssue(ctx, tracker.NewIssue{Title: "Add export", Body: "CSV please", Labels: []string{"ai/impl", "Bug", "bug", " "}})
	if err != nil {
		t.Fatal(err)
	}
	want := tracker.Issue{Number: 1, Title: "Add export", Body: "CSV please", State: "open", Labels: []string{"ai/impl", "Bug"},
		Author: "alice", AuthorAssociation: "OWNER",
		CreatedAt: time.Date(2026, 4, 1, 9, 0, 1, 0, time.UTC), UpdatedAt: time.Date(2026, 4, 1, 9, 0, 2, 0, time.UTC)}
	if fmt.Sprintf("%+v", *one) != fmt.Sprintf("%+v", want) {
		t.Errorf("CreateIssue = %+v; want %+v", *one, want)
	}
	if _, err := tr.CreateIssue(ctx, tracker.NewIssue{Title: "  "}); err == nil {
		t.Error("CreateIssue with an empty title succeeded; want an error")
	}
	two, _ := tr.CreateIssue(ctx, tracker.NewIssue{Title: "Fix login", Labels: []string{"BUG"}})
	three, _ := tr.CreateIssue(ctx, tracker.NewIssue{Title: "Old"})
	if err := tr.SetState(ctx, three.Number, tracker.StateClosed); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(two.Labels) != "[Bug]" {
		t.Errorf("labels of #2 = %v; want [Bug], spelled as first created", two.Labels)
	}

	got, err := tr.Issue(ctx, 1)
	if err != nil || fmt.Sprintf("%+v", *got) != fmt.Sprintf("%+v", want) {
		t.Errorf("Issue(1) = %+v, %v; want %+v", got, err, want)
	}
	if _, err := tr.Issue(ctx, 42); tracker.KindOf(err) != tracker.KindNotFound {
		t.Errorf("Issue(42): %v; want not-found", err)
	}

	tests := []struct {
		name string
		opts tracker.ListOptions
		want []int
	}{
		{"open", tracker.ListOptions{}, []int{1, 2}},
		{"closed", tracker.ListOptions{State: "closed"}, []int{3}},
		{"all", tracker.ListOptions{State: "all"}, []int{1, 2, 3}},
		{"one label, any case", tracker.ListOptions{Labels: []string{"bug"}}, []int{1, 2}},
		{"every label must match", tracker.ListOptions{Labels: []string{"bug", "AI/impl"}}, []int{1}},
		{"repeated label", tracker.ListOptions{Labels: []string{"bug", "BUG"}}, []int{1, 2}},
		{"unknown label", tracker.ListOptions{Labels: []string{"nope"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := tr.ListIssues(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(numbers(list)) != fmt.Sprint(tt.want) {
				t.Errorf("ListIssues(%+v) = %v; want %v", tt.opts, numbers(list), tt.want)
			}
		})
	}
	if _, err := tr.ListIssues(ctx, tracker.ListOptions{State: "merged"}); err == nil {
		t.Error("ListIssues(state merged) succeeded; want an error")
	}
}

func TestCommentsAndLabels(t *testing.T) {
	ctx := context.Background()
	tr := open(t, filepath.Join(t.TempDir(), FileName), clock())
	is, _ := tr.CreateIssue(ctx, tracker.NewIssue{Title: "x", Labels: []string{"ai/impl"}})
	other, _ := tr.CreateIssue(ctx, tracker.NewIssue{Title: "y"})

	var ids []int64
	for i := range 3 {
		c, err := tr.AddComment(ctx, is.Number, fmt.Sprint("decision ", i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	if _, err := tr.AddComment(ctx, other.Number, "elsewhere"); err != nil {
		t.Fatal(err)
	}
	if err := tr.DeleteComment(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	again, err := tr.AddComment(ctx, is.Number, "after delete")
	if err != nil {
		t.Fatal(err)
	}
	if again.ID <= ids[2]+1 {
		t.Errorf("id after a delete = %d; want above %d (ids are never reused)", again.ID, ids[2]+1)
	}
	list, err := tr.Comments(ctx, is.Number)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for i, c := range list {
		bodies = append(bodies, c.Body)
		if c.Author != "alice" || c.CreatedAt.IsZero() || (i > 0 && c.ID <= list[i-1].ID) {
			t.Errorf("comment %d = %+v; want by alice, dated, ids increasing", i, c)
		}
	}
	if fmt.Sprint(bodies) != "[decision 0 decision 1 after delete]" {
		t.Errorf("comments = %q; want [decision 0 decision 1 after delete]", bodies)
	}
	if err := tr.DeleteComment(ctx, ids[2]); tracker.KindOf(err) != tracker.KindNotFound {
		t.Errorf("deleting twice: %v; want not-found", err)
	}

	if err := tr.AddLabels(ctx, is.Number, "status:in-progress", "AI/IMPL"); err != nil {
		t.Fatal(err)
	}
	if err := tr.RemoveLabel(ctx, is.Number, "Ai/Impl"); err != nil {
		t.Fatal(err)
	}
	if err := tr.RemoveLabel(ctx, is.Number, "never-there"); err != nil {
		t.Errorf("removing an absent label: %v; want no error", err)
	}
	got, _ := tr.Issue(ctx, is.Number)
	if fmt.Sprint(got.Labels) != "[status:in-progress]" {
		t.Errorf("labels = %v; want [status:in-progress]", got.Labels)
	}
	if !got.UpdatedAt.After(got.CreatedAt) {
		t.Errorf("updated %v not after created %v", got.UpdatedAt, got.CreatedAt)
	}

	missing := []struct {
		name string
		op   func() error
	}{
		{"comments", func() error { _, err := tr.Comments(ctx, 99); return err }},
		{"add comment", func() error { _, err := tr.AddComment(ctx, 99, "x"); return err }},
		{"add labels", func() error { return tr.AddLabels(ctx, 99, "x") }},
		{"remove label", func() error { return tr.RemoveLabel(ctx, 99, "x") }},
		{"set state", func() error { return tr.SetState(ctx, 99, "closed") }},
	}
	for _, m := range missing {
		t.Run("missing issue: "+m.name, func(t *testing.T) {
			err := m.op()
			var te *tracker.Error
			if !errors.As(err, &te) || te.Kind != tracker.KindNotFound || !strings.Contains(err.Error(), "#99") {
				t.Errorf("got %v; want a not-found *tracker.Error naming #99", err)
			}
		})
	}
}

func TestReopenKeepsIssuesAndRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	tr, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.CreateIssue(ctx, tracker.NewIssue{Title: "kept"}); err != nil {
		t.Fatal(err)
	}
	tr.Close()

	tr = open(t, path, nil)
	is, err := tr.Issue(ctx, 1)
	if err != nil || is.Title != "kept" || is.Author != "local" {
		t.Fatalf("after reopening: %+v, %v; want issue kept by local", is, err)
	}
	tr.Close()

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(ctx, path, Options{}); err == nil || !strings.Contains(err.Error(), "upgrade baton") {
		t.Errorf("Open of a newer schema: %v; want an error saying to upgrade", err)
	}
}

// TestTwoProcesses runs two processes that create the file and write to it
// at once: nothing is lost, ids stay unique and increasing.
func TestTwoProcesses(t *testing.T) {
	if os.Getenv("BATON_LOCAL_TRACKER_WRITER") != "" {
		return
	}
	path := filepath.Join(t.TempDir(), FileName)
	const perProcess = 40
	var cmds []*exec.Cmd
	for i := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcess$")
		cmd.Env = append(os.Environ(), "BATON_LOCAL_TRACKER_WRITER="+strconv.Itoa(i), "BATON_LOCAL_TRACKER_PATH="+path,
			"BATON_LOCAL_TRACKER_N="+strconv.Itoa(perProcess))
		cmd.Stderr, cmd.Stdout = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer process: %v", err)
		}
	}
	ctx := context.Background()
	tr := open(t, path, nil)
	issues, err := tr.ListIssues(ctx, tracker.ListOptions{State: "all"})
	if err != nil {
		t.Fatal(err)
	}
	if len(issues) != 2*perProcess {
		t.Errorf("got %d issues; want %d", len(issues), 2*perProcess)
	}
	comments, err := tr.Comments(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(comments) != 2*perProcess {
		t.Fatalf("got %d comments on #1; want %d", len(comments), 2*perProcess)
	}
	last := map[string]int{}
	for i, c := range comments {
		if i > 0 && c.ID <= comments[i-1].ID {
			t.Fatalf("comment ids not increasing: %d after %d", c.ID, comments[i-1].ID)
		}
		writer, seq, _ := strings.Cut(c.Body, ":")
		n, _ := strconv.Atoi(seq)
		if prev, ok := last[writer]; ok && n != prev+1 {
			t.Errorf("writer %s: comment %d follows %d; want its comments in order", writer, n, prev)
		}
		last[writer] = n
	}
	is, _ := tr.Issue(ctx, 1)
	if len(is.Labels) != 2 {
		t.Errorf("labels of #1 = %v; want one from each writer", is.Labels)
	}
}

// TestWriterProcess is one writer of TestTwoProcesses; it does nothing in
// a normal test run.
func TestWriterProcess(t *testing.T) {
	writer := os.Getenv("BATON_LOCAL_TRACKER_WRITER")
	if writer == "" {
		t.Skip("helper of TestTwoProcesses")
	}
	n, _ := strconv.Atoi(os.Getenv("BATON_LOCAL_TRACKER_N"))
	ctx := context.Background()
	tr, err := Open(ctx, os.Getenv("BATON_LOCAL_TRACKER_PATH"), Options{Author: "writer " + writer})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for i := range n {
		if _, err := tr.CreateIssue(ctx, tracker.NewIssue{Title: fmt.Sprintf("from %s #%d", writer, i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := tr.AddComment(ctx, 1, fmt.Sprintf("%s:%d", writer, i)); err != nil {
			t.Fatal(err)
		}
		if err := tr.AddLabels(ctx, 1, "writer-"+writer); err != nil {
			t.Fatal(err)
		}
	}
}
