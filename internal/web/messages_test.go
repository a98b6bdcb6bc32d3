package web

import (
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/debate"
	"github.com/baton-cli/baton/internal/i18n"
)

// TestMessages checks that every text the templates name exists, in both
// languages: a branch of a template that no test takes would otherwise
// fail only in front of a person.
func TestMessages(t *testing.T) {
	for key, m := range messages {
		if strings.TrimSpace(m.JA) == "" || strings.TrimSpace(m.EN) == "" {
			t.Errorf("message %q: %+v; want both languages", key, m)
		}
	}
	uses := regexp.MustCompile(`\{\{-?\s*(?:.*?\()?tf? "([a-z.]+)"`)
	dynamic := regexp.MustCompile(`printf "([a-z.]+)%s"`)
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := fs.ReadFile(templateFS, n)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range uses.FindAllStringSubmatch(string(b), -1) {
			if _, ok := messages[m[1]]; !ok {
				t.Errorf("%s uses message %q, which does not exist", n, m[1])
			}
		}
		for _, m := range dynamic.FindAllStringSubmatch(string(b), -1) {
			values := usageViews
			if m[1] == "debates.status." {
				values = []string{string(debate.Active), string(debate.Concluded), string(debate.Timeout), string(debate.Aborted)}
			}
			for _, v := range values {
				if _, ok := messages[m[1]+v]; !ok {
					t.Errorf("%s uses message %q, which does not exist", n, m[1]+v)
				}
			}
		}
	}
}

// TestPagesInJapanese renders every page in Japanese.
func TestPagesInJapanese(t *testing.T) {
	fx := newFixture(t)
	o := fx.options()
	o.Lang = i18n.JA
	o.Index = fx.index(t)
	ts := fx.server(t, o, "")
	for _, tt := range []struct{ path, want string }{
		{"/", "前回の続き"},
		{"/sessions/" + fxSession, "トークン使用量"},
		{"/decisions", "承認待ちの候補"},
		{"/context", "L1 直近の要約"},
		{"/runs", "ワーカー実行"},
		{"/runs/" + fx.RunID, "エージェントの実行"},
		{"/debates", "議題"},
		{"/debates/" + fx.DebateID, "司会のまとめ"},
		{"/search?q=csv", "件"},
		{"/usage?by=monthly", "キャッシュ読み込み"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			res, body := get(t, ts.URL, tt.path)
			if res.StatusCode != http.StatusOK || !strings.Contains(body, tt.want) || !strings.Contains(body, `<html lang="ja">`) {
				t.Errorf("GET %s: %d; want 200 in Japanese with %q", tt.path, res.StatusCode, tt.want)
			}
		})
	}
}
