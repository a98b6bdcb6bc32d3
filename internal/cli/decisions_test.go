package cli

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/i18n"
)

func TestPromptUI(t *testing.T) {
	cands := []decision.Candidate{
		{Slug: "alpha", What: "Use alpha", ScopeHint: decision.ScopeIssue},
		{Slug: "beta", What: "Use beta", ScopeHint: decision.ScopeCrossIssue},
		{Slug: "gamma", What: strings.Repeat("long ", 40), ScopeHint: decision.ScopeIssue},
	}
	tests := []struct {
		name   string
		input  string
		scopes map[string]string
		want   []string // slug=scope
		err    error
	}{
		{name: "enter twice keeps all and the hints", input: "\n\n", want: []string{"alpha=issue", "beta=cross-issue", "gamma=issue"}},
		{name: "pick and toggle", input: "3,1\n1\n", want: []string{"gamma=cross-issue", "alpha=issue"}},
		{name: "a wrong answer is asked again", input: "7\n2\nx\n\n", want: []string{"beta=cross-issue"}},
		{name: "none", input: "n\n", want: nil},
		{name: "flag scope is the suggestion", input: "1\n\n", scopes: map[string]string{"alpha": "cross-issue"}, want: []string{"alpha=cross-issue"}},
		{name: "end of input cancels", input: "", err: decision.ErrCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			f := &Factory{IO: &IOStreams{In: strings.NewReader(tt.input), Out: &out, ErrOut: &out}}
			ui := &promptUI{f: f, lang: i18n.EN, scopes: tt.scopes}
			ds, err := ui.Approve(context.Background(), cands)
			if err != tt.err {
				t.Fatalf("err: got %v; want %v", err, tt.err)
			}
			var got []string
			for _, d := range ds {
				got = append(got, d.Candidate.Slug+"="+d.FinalScope)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v; want %v\n%s", got, tt.want, out.String())
			}
			if tt.input != "" && !strings.Contains(out.String(), "  3) gamma — "+strings.Repeat("long ", 16)+"…") {
				t.Errorf("the list does not show the cut what:\n%s", out.String())
			}
		})
	}
}

func TestPromptUIOtherQuestions(t *testing.T) {
	var out bytes.Buffer
	f := &Factory{IO: &IOStreams{In: strings.NewReader("5\n2\nabort\n\nx\nd\n"), Out: &out, ErrOut: &out}}
	ui := &promptUI{f: f, lang: i18n.EN}
	if n, err := ui.ChooseIssue(context.Background(), []int{7, 8}); n != 8 || err != nil {
		t.Errorf("ChooseIssue: %d %v; want 8", n, err)
	}
	for _, want := range []decision.Choice{decision.ChoiceAbort, decision.ChoiceSave, decision.ChoiceDiscard} {
		if c, err := ui.OnFailure(context.Background(), []decision.Failure{{Slug: "a"}}); c != want || err != nil {
			t.Errorf("OnFailure: %s %v; want %s", c, err, want)
		}
	}
	if _, err := ui.ChooseIssue(context.Background(), []int{7, 8}); err != decision.ErrCancelled {
		t.Errorf("ChooseIssue at end of input: %v; want cancelled", err)
	}
}
