package web

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/baton-cli/baton/internal/debate"
	"github.com/baton-cli/baton/internal/i18n"
)

// chromium finds the browser: $BATON_CHROMIUM, else chromium on PATH, else
// Debian's /usr/bin/chromium. Outside CI a missing browser skips the test;
// in CI it fails it, since scripts/test installs the browser.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("BATON_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found: the browser tests need it in CI (scripts/test installs Debian's chromium)")
	}
	t.Skip("chromium not found: install it (Debian: apt-get install chromium) or set BATON_CHROMIUM to run the browser tests")
	return ""
}

// artifacts is where screenshots go: $BATON_ARTIFACTS/web, else a
// temporary folder of the test.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if a := os.Getenv("BATON_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "web")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browser starts a headless Chromium with a fresh profile and returns a
// context for its first tab; it is stopped when the test ends.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	profile, err := os.MkdirTemp("", "baton-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The browser's helper processes may still write to the profile
		// for a moment after it exits.
		deadline := time.Now().Add(10 * time.Second)
		for os.RemoveAll(profile) != nil && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first Run starts the browser; it lives as long as ctx.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`1`)); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	return ctx
}

// watch records what must not happen on the dashboard's pages: a
// JavaScript dialog (an injected script running), an uncaught exception,
// and, through a listener added to every document before its scripts, a
// Content-Security-Policy violation (the pages must keep to their own
// policy: no inline script or style).
type watch struct {
	mu         sync.Mutex
	dialogs    []string
	exceptions []string
}

const violationsScript = `window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI));`

func newWatch(t *testing.T, ctx context.Context) *watch {
	t.Helper()
	w := &watch{}
	dialogs := make(chan struct{}, 16)
	err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			w.mu.Lock()
			w.dialogs = append(w.dialogs, ev.Message)
			w.mu.Unlock()
			select {
			case dialogs <- struct{}{}:
			default:
			}
		case *runtime.EventExceptionThrown:
			w.mu.Lock()
			w.exceptions = append(w.exceptions, (&chromedp.ExceptionError{ExceptionDetails: ev.ExceptionDetails}).Error())
			w.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// A dialog blocks the page until closed: close any so the test goes on
	// to report it.
	go func() {
		for range dialogs {
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: violationsScript}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *watch) check(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.dialogs) > 0 {
		t.Errorf("%s: JavaScript dialogs opened: %q; want none", where, w.dialogs)
	}
	if len(w.exceptions) > 0 {
		t.Errorf("%s: uncaught exceptions: %q; want none", where, w.exceptions)
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__cspViolations || []`))
	if err != nil {
		t.Fatalf("%s: read CSP violations: %v", where, err)
	}
	if len(v) > 0 {
		t.Errorf("%s: Content-Security-Policy violations: %q; want none", where, v)
	}
}

// step bounds one browser action; the browser itself lives on.
func step(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// TestBrowser loads every page of the fixture in headless Chromium: each
// shows the fixture's data, a search finds the seeded record, the hostile
// prompt is text (no script ran), a page of another origin is refused, and
// no page breaks its own Content-Security-Policy. Screenshots are saved.
func TestBrowser(t *testing.T) {
	ctx := browser(t)
	fx := newFixture(t)
	o := fx.options()
	o.Index = fx.index(t)
	ts := fx.server(t, o, "")
	shots := artifacts(t)
	w := newWatch(t, ctx)

	pages := []struct {
		name, path string
		// in is the element whose text must hold want.
		in   string
		want []string
	}{
		{"sessions", "/", "main", []string{fxTask, fx.Main, fxBranch, fx.Other, fxOtherBranch}},
		{"session", "/sessions/" + fxSession, "main", []string{fxHostile, fxFile, fxSlug, "13,330", "The export now streams rows."}},
		{"decisions", "/decisions", "main", []string{fxSlug, fxPendingSlug, fxCrossSlug, fxProposal, "in memory"}},
		{"context", "/context", "main", []string{"Write CSV rows as they are read", fxL1Action, fxHostile}},
		{"runs", "/runs", "main", []string{fxRunTitle, "Flaky test", "IMPL_NO_LINKED_PR"}},
		{"run", "/runs/" + fx.RunID, "main", []string{fxRunTitle, "Opened the pull request.", "#77"}},
		{"debates", "/debates", "main", []string{fxTopic, "concluded"}},
		{"debate", "/debates/" + fx.DebateID, "#rounds", []string{fxProRound2, fxConRound1, "Round 2", "Not written: the debate ended first."}},
		{"usage", "/usage", "main", []string{"2026-03-10", "2026-03-09", "13,330", "13,340 tokens in all"}},
		{"usage-empty", "/usage?since=2030-01-01", "main", []string{"No usage in this period.", "Show all time"}},
		{"search-results", "/search?q=csv", "#hits", []string{fxSlug}},
	}
	for _, size := range screens {
		for _, p := range pages {
			t.Run(fmt.Sprintf("%s at %d", p.name, size.width), func(t *testing.T) {
				c := step(t, ctx)
				if err := chromedp.Do(c, size.emulate()); err != nil {
					t.Fatal(err)
				}
				res, err := chromedp.Run(c, chromedp.NavigateResponse(ts.URL+p.path))
				if err != nil {
					t.Fatalf("open %s: %v", p.path, err)
				}
				if res.Status != http.StatusOK {
					t.Fatalf("open %s: status %d; want 200", p.path, res.Status)
				}
				text, err := chromedp.Run(c, chromedp.TextContent(chromedp.CSS(p.in)))
				if err != nil {
					t.Fatalf("read %s of %s: %v", p.in, p.path, err)
				}
				for _, want := range p.want {
					if !strings.Contains(text, want) {
						t.Errorf("%s: %s text lacks %q", p.path, p.in, want)
					}
				}
				// The style sheet applied: the header is laid out as a flex row.
				display, err := chromedp.Run(c, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("header.top")).display`))
				if err != nil || display != "flex" {
					t.Errorf("%s: header display %q, %v; want flex from style.css", p.path, display, err)
				}
				checkFits(t, c, p.path, size.width)
				shot(t, c, shots, fmt.Sprintf("%s-%d", p.name, size.width))
				w.check(t, c, p.path)
			})
		}
	}
	if err := chromedp.Do(step(t, ctx), screens[0].emulate()); err != nil {
		t.Fatal(err)
	}

	t.Run("hostile prompt is text", func(t *testing.T) {
		c := step(t, ctx)
		if err := chromedp.Do(c, chromedp.Navigate(ts.URL+"/sessions/"+fxSession)); err != nil {
			t.Fatal(err)
		}
		prompts, err := chromedp.Run(c, chromedp.TextContent(chromedp.CSS("#prompts")))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(prompts, "<script>alert(1)</script>") {
			t.Errorf("prompts text %q; want the prompt's markup shown as text", prompts)
		}
		scripts, err := chromedp.Run(c, chromedp.Evaluate[int](`document.querySelectorAll("main script, main [onerror], main [onload]").length`))
		if err != nil || scripts != 0 {
			t.Errorf("script elements in main: %d, %v; want 0", scripts, err)
		}
		w.check(t, c, "session page")
	})

	t.Run("search finds the seeded record", func(t *testing.T) {
		c := step(t, ctx)
		if err := chromedp.Do(c,
			chromedp.Navigate(ts.URL+"/search"),
			chromedp.WaitVisible(chromedp.CSS("#q")),
			chromedp.SendKeys(chromedp.CSS("#q"), "stream"),
		); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.RunResponse(c, chromedp.Submit(chromedp.CSS("#q"))); err != nil {
			t.Fatalf("submit the search: %v", err)
		}
		hits, err := chromedp.Run(c, chromedp.TextContent(chromedp.CSS("#hits")))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(hits, fxSlug) {
			t.Errorf("hits %q; want the seeded decision %q", hits, fxSlug)
		}
		marks, err := chromedp.Run(c, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#hits mark")].map(m => m.textContent)`))
		if err != nil || len(marks) == 0 || !strings.EqualFold(marks[0], "stream") {
			t.Errorf("marked words %q, %v; want the match marked", marks, err)
		}
		loc, err := chromedp.Run(c, chromedp.Location())
		if err != nil || !strings.Contains(loc, "/search?q=stream") {
			t.Errorf("location %q, %v; want the search's address", loc, err)
		}
		shot(t, c, shots, "search")
		w.check(t, c, "search")
	})

	t.Run("hostile prompt in search results is text", func(t *testing.T) {
		c := step(t, ctx)
		if err := chromedp.Do(c, chromedp.Navigate(ts.URL+"/search?q=alert")); err != nil {
			t.Fatal(err)
		}
		hits, err := chromedp.Run(c, chromedp.TextContent(chromedp.CSS("#hits")))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(hits, "<script>alert(1)</script>") {
			t.Errorf("hits %q; want the prompt's markup as text", hits)
		}
		w.check(t, c, "search for alert")
	})

	t.Run("foreign origin refused", func(t *testing.T) {
		// A page of another origin posts a form to the dashboard, as a
		// hostile site open in the same browser could.
		evil := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			rw.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(rw, `<!DOCTYPE html><title>elsewhere</title><form id="f" method="post" action="%s/decisions"><input name="x" value="1"></form>`, ts.URL)
		}))
		defer evil.Close()
		c := step(t, ctx)
		if err := chromedp.Do(c, chromedp.Navigate(evil.URL)); err != nil {
			t.Fatal(err)
		}
		res, err := chromedp.RunResponse(c, chromedp.Submit(chromedp.CSS("#f")))
		if err != nil {
			t.Fatalf("submit the foreign form: %v", err)
		}
		if res.Status != http.StatusForbidden {
			t.Errorf("status %d; want 403", res.Status)
		}
		body, err := chromedp.Run(c, chromedp.TextContent(chromedp.CSS("body")))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(body, "Requests from other sites are refused.") || strings.Contains(body, fxPendingSlug) {
			t.Errorf("body %q; want the refusal and no dashboard data", body)
		}
		shot(t, c, shots, "foreign-origin")
	})
}

// A screen is a window size the pages are checked at.
type screen struct {
	width, height int64
	mobile        bool
}

// screens: a laptop's window and a phone's.
var screens = []screen{{1280, 900, false}, {375, 812, true}}

func (s screen) emulate() chromedp.Action[chromedp.Void] {
	if s.mobile {
		return chromedp.EmulateViewport(s.width, s.height, chromedp.EmulateMobile, chromedp.EmulateScale(2))
	}
	return chromedp.EmulateViewport(s.width, s.height)
}

// checkFits fails t when the page is wider than the screen (it would
// scroll sideways) or when the menu, the title or the start of the page's
// content lies outside the screen's width.
func checkFits(t *testing.T, ctx context.Context, where string, width int64) {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]float64](`(() => {
		const right = (sel) => { const e = document.querySelector(sel); if (!e) return -1; const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 ? r.right : -1; };
		return {
			scroll: document.scrollingElement.scrollWidth,
			inner: window.innerWidth,
			nav: right("header.top nav"),
			title: right("main h1"),
			first: right("main > h1 + *"),
		};
	})()`))
	if err != nil {
		t.Fatalf("%s: measure the page: %v", where, err)
	}
	if got["scroll"] > float64(width) || got["inner"] > float64(width) {
		t.Errorf("%s at %dpx: the page is %vpx wide (window %vpx); want no sideways scrolling", where, width, got["scroll"], got["inner"])
	}
	for _, k := range []string{"nav", "title", "first"} {
		if got[k] < 0 || got[k] > float64(width)+0.5 {
			t.Errorf("%s at %dpx: the %s ends at %vpx; want it shown within the screen", where, width, k, got[k])
		}
	}
}

// shot saves a full-page screenshot as <dir>/<name>.png.
func shot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, b, 0o644); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("save screenshot: %v", err)
		return
	}
	t.Logf("screenshot: %s", path)
}

// paneModerator plays a moderator in a tmux pane: it does what the summary
// request says, writing its summary to the Markdown file the request names.
type paneModerator struct{ summary string }

func (paneModerator) Check(context.Context, []debate.Message) error { return nil }

func (m paneModerator) Deliver(_ context.Context, msgs []debate.Message) error {
	for _, msg := range msgs {
		for _, word := range strings.Fields(msg.Text) {
			if path := strings.TrimRight(word, ".。（("); strings.HasSuffix(path, "-summary.md") {
				return os.WriteFile(path, []byte(m.summary), 0o600)
			}
		}
	}
	return nil
}

// TestBrowserTmuxDebateSummary ends a tmux debate, asks its moderator for
// the summary as stop --summary does, and reads the debate's page in both
// languages: the summary the moderator wrote is shown, its markup as text.
func TestBrowserTmuxDebateSummary(t *testing.T) {
	ctx := browser(t)
	fx := newFixture(t)
	dd := debate.Dir{Root: fx.DebatesDir}
	const id = "cc-debate-20260310-110000-cd34"
	if err := dd.Create(&debate.Session{ID: id, Topic: "Tabs or spaces?", MaxRounds: 3, CurrentRound: 1,
		Status: debate.Aborted, Transport: debate.TransportTmux, PaneModerator: "%1", PanePro: "%2", PaneCon: "%3"}); err != nil {
		t.Fatal(err)
	}
	const summary = "## Points\n\nBoth sides keep gofmt. <img src=x onerror=alert(1)>\n"
	if err := dd.Summarize(t.Context(), id, paneModerator{summary: summary}); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []i18n.Lang{i18n.EN, i18n.JA} {
		o := fx.options()
		o.Lang = lang
		ts := fx.server(t, o, "")
		t.Run(string(lang), func(t *testing.T) {
			c := step(t, ctx)
			if err := chromedp.Do(c, chromedp.Navigate(ts.URL+"/debates/"+id)); err != nil {
				t.Fatal(err)
			}
			text, err := chromedp.Run(c, chromedp.TextContent(chromedp.CSS("#summary")))
			if err != nil {
				t.Fatalf("read the summary: %v", err)
			}
			heading := map[i18n.Lang]string{i18n.EN: "Moderator's summary", i18n.JA: "司会のまとめ"}[lang]
			for _, want := range []string{heading, "Both sides keep gofmt.", "<img src=x onerror=alert(1)>"} {
				if !strings.Contains(text, want) {
					t.Errorf("summary section %q lacks %q", text, want)
				}
			}
			imgs, err := chromedp.Run(c, chromedp.Evaluate[int](`document.querySelectorAll("main img, main [onerror]").length`))
			if err != nil || imgs != 0 {
				t.Errorf("elements made from the summary's markup: %d, %v; want 0", imgs, err)
			}
		})
	}
}
