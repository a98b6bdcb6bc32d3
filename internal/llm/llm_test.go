package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/llm"
)

func TestQuote(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "short", in: "exit status 1", want: "exit status 1"},
		{name: "one line", in: "bad\n\trequest  body\n", want: "bad request body"},
		{name: "secret", in: "key " + secret + " refused", want: "key [REDACTED:github] refused"},
		{name: "long", in: strings.Repeat("é", 400), want: strings.Repeat("é", 300) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.Quote(tt.in); got != tt.want {
				t.Errorf("Quote(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	if err := llm.Wrap("openai", nil); err != nil {
		t.Errorf("Wrap(nil) = %v; want nil", err)
	}
	inner := errors.Join(context.DeadlineExceeded, errors.New("POST https://api.example/v1 with key "+secret))
	err := llm.Wrap("openai", inner)
	if want := "openai: context deadline exceeded POST https://api.example/v1 with key [REDACTED:github]"; err.Error() != want {
		t.Errorf("Error() = %q; want %q", err.Error(), want)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(%v, DeadlineExceeded) = false; want true", err)
	}
}
