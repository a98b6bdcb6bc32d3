package web

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/i18n"
)

func TestCheckBind(t *testing.T) {
	tests := []struct {
		name        string
		addr        string
		allowRemote bool
		token       string
		want        error
	}{
		{name: "loopback v4", addr: "127.0.0.1:7433"},
		{name: "loopback v4 any port", addr: "127.0.0.1:0"},
		{name: "other loopback v4", addr: "127.0.0.2:7433"},
		{name: "localhost", addr: "localhost:7433"},
		{name: "loopback v6", addr: "[::1]:7433"},
		{name: "wildcard refused", addr: "0.0.0.0:7433", want: ErrRemote},
		{name: "empty host is every interface", addr: ":7433", want: ErrRemote},
		{name: "v6 wildcard refused", addr: "[::]:7433", want: ErrRemote},
		{name: "lan address refused", addr: "192.168.1.5:7433", want: ErrRemote},
		{name: "host name refused", addr: "devbox:7433", want: ErrRemote},
		{name: "token alone is not enough", addr: "0.0.0.0:7433", token: "s3cret", want: ErrRemote},
		{name: "remote allowed without a token", addr: "0.0.0.0:7433", allowRemote: true, want: ErrNoToken},
		{name: "remote allowed with a token", addr: "0.0.0.0:7433", allowRemote: true, token: "s3cret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckBind(tt.addr, tt.allowRemote, tt.token)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("CheckBind(%q, %v, %q) = %v; want %v", tt.addr, tt.allowRemote, tt.token, err, tt.want)
			}
		})
	}
	if err := CheckBind("7433", false, ""); err == nil {
		t.Error("CheckBind(\"7433\") = nil; want an error for an address without a host part")
	}
}

func TestHosts(t *testing.T) {
	tests := []struct {
		name    string
		addr    *net.TCPAddr
		names   []string
		want    []string
		notWant []string
	}{
		{
			name:    "loopback",
			addr:    &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7433},
			names:   []string{"devbox"},
			want:    []string{"127.0.0.1:7433", "localhost:7433", "[::1]:7433"},
			notWant: []string{"devbox:7433", "127.0.0.1:80", "localhost:7434"},
		},
		{
			name:    "one address",
			addr:    &net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 80},
			names:   []string{"devbox"},
			want:    []string{"192.168.1.5:80", "devbox:80"},
			notWant: []string{"localhost:80", "127.0.0.1:80"},
		},
		{
			name:  "wildcard",
			addr:  &net.TCPAddr{IP: net.IPv4zero, Port: 7433},
			names: []string{"DevBox"},
			want:  []string{"127.0.0.1:7433", "localhost:7433", "devbox:7433"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Hosts(tt.addr, tt.names...)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("Hosts(%v) = %v; want it to hold %q", tt.addr, got, w)
				}
			}
			for _, w := range tt.notWant {
				if slices.Contains(got, w) {
					t.Errorf("Hosts(%v) = %v; want it without %q", tt.addr, got, w)
				}
			}
		})
	}
}

func TestGuard(t *testing.T) {
	const own = "127.0.0.1:7433"
	hosts := Hosts(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7433})
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("page")) })
	tests := []struct {
		name   string
		token  string
		method string
		target string
		host   string
		header map[string]string
		cookie string
		code   int
		// location is where a redirect goes; setCookie whether it sets the
		// token cookie.
		location  string
		setCookie bool
	}{
		{name: "own host", host: own, code: http.StatusOK},
		{name: "localhost alias", host: "localhost:7433", code: http.StatusOK},
		{name: "host is case insensitive", host: "LOCALHOST:7433", code: http.StatusOK},
		{name: "foreign host (DNS rebinding)", host: "evil.example:7433", code: http.StatusForbidden},
		{name: "own name on another port", host: "127.0.0.1:8080", code: http.StatusForbidden},
		{name: "no port means port 80", host: "localhost", code: http.StatusForbidden},
		{name: "own origin", host: own, header: map[string]string{"Origin": "http://127.0.0.1:7433"}, code: http.StatusOK},
		{name: "alias origin", host: own, header: map[string]string{"Origin": "http://localhost:7433"}, code: http.StatusOK},
		{name: "foreign origin", host: own, header: map[string]string{"Origin": "http://evil.example"}, code: http.StatusForbidden},
		{name: "foreign port origin", host: own, header: map[string]string{"Origin": "http://127.0.0.1:9999"}, code: http.StatusForbidden},
		{name: "https origin is not ours", host: own, header: map[string]string{"Origin": "https://127.0.0.1:7433"}, code: http.StatusForbidden},
		{name: "null origin", host: own, header: map[string]string{"Origin": "null"}, code: http.StatusForbidden},
		{name: "cross-site fetch", host: own, header: map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}, code: http.StatusForbidden},
		{name: "cross-site link followed", host: own, header: map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}, code: http.StatusOK},
		{name: "post refused", host: own, method: http.MethodPost, code: http.StatusMethodNotAllowed},
		{name: "foreign post refused before anything", host: own, method: http.MethodPost, header: map[string]string{"Origin": "http://evil.example"}, code: http.StatusForbidden},
		{name: "head allowed", host: own, method: http.MethodHead, code: http.StatusOK},
		{name: "token missing", token: "s3cret", host: own, code: http.StatusUnauthorized},
		{name: "token wrong", token: "s3cret", host: own, header: map[string]string{"Authorization": "Bearer nope"}, code: http.StatusUnauthorized},
		{name: "token in header", token: "s3cret", host: own, header: map[string]string{"Authorization": "Bearer s3cret"}, code: http.StatusOK},
		{name: "token in cookie", token: "s3cret", host: own, cookie: "s3cret", code: http.StatusOK},
		{name: "wrong cookie", token: "s3cret", host: own, cookie: "s3cre", code: http.StatusUnauthorized},
		{name: "token in query sets the cookie", token: "s3cret", host: own, target: "/search?q=csv&token=s3cret", code: http.StatusSeeOther, location: "/search?q=csv", setCookie: true},
		{name: "wrong token in query", token: "s3cret", host: own, target: "/?token=nope", code: http.StatusUnauthorized},
		{name: "token does not excuse a foreign host", token: "s3cret", host: "evil.example:7433", header: map[string]string{"Authorization": "Bearer s3cret"}, code: http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method, target := cmp0(tt.method, http.MethodGet), cmp0(tt.target, "/")
			req := httptest.NewRequest(method, target, nil)
			req.Host = tt.host
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			if tt.cookie != "" {
				req.AddCookie(&http.Cookie{Name: TokenCookie, Value: tt.cookie})
			}
			rec := httptest.NewRecorder()
			Guard{Hosts: hosts, Token: tt.token, Lang: i18n.EN}.Wrap(ok).ServeHTTP(rec, req)
			if rec.Code != tt.code {
				t.Fatalf("status %d; want %d (%s)", rec.Code, tt.code, rec.Body)
			}
			if got := rec.Header().Get("Content-Security-Policy"); got != ContentSecurityPolicy {
				t.Errorf("Content-Security-Policy %q; want %q", got, ContentSecurityPolicy)
			}
			if got := rec.Header().Get("Location"); got != tt.location {
				t.Errorf("Location %q; want %q", got, tt.location)
			}
			var set *http.Cookie
			for _, c := range rec.Result().Cookies() {
				if c.Name == TokenCookie {
					set = c
				}
			}
			if (set != nil) != tt.setCookie {
				t.Fatalf("token cookie set: %v; want %v", set != nil, tt.setCookie)
			}
			if set != nil && (set.Value != tt.token || !set.HttpOnly || set.SameSite != http.SameSiteStrictMode) {
				t.Errorf("cookie %+v; want the token, HttpOnly, SameSite=Strict", set)
			}
			if tt.code == http.StatusOK && method == http.MethodGet && rec.Body.String() != "page" {
				t.Errorf("body %q; want the page", rec.Body)
			}
			if tt.code >= 400 && strings.Contains(rec.Body.String(), "page") {
				t.Errorf("refusal %d shows the page", tt.code)
			}
		})
	}
}

func TestSecurityHeaders(t *testing.T) {
	fx := newFixture(t)
	ts := fx.server(t, fx.options(), "")
	want := map[string]string{
		"Content-Security-Policy": ContentSecurityPolicy,
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"X-Frame-Options":         "DENY",
	}
	for _, path := range []string{"/", "/sessions/" + fxSession, "/decisions", "/context", "/runs", "/debates", "/search?q=x", "/usage", "/static/app.js", "/nope"} {
		t.Run(path, func(t *testing.T) {
			res, _ := get(t, ts.URL, path)
			for k, v := range want {
				if got := res.Header.Get(k); got != v {
					t.Errorf("%s: %s %q; want %q", path, k, got, v)
				}
			}
		})
	}
	for _, csp := range []string{"script-src 'self'", "style-src 'self'", "default-src 'self'"} {
		if !strings.Contains(ContentSecurityPolicy, csp) || strings.Contains(ContentSecurityPolicy, "unsafe-inline") {
			t.Errorf("policy %q; want %q and no unsafe-inline", ContentSecurityPolicy, csp)
		}
	}
}

func TestForeignOriginRefusedByServer(t *testing.T) {
	fx := newFixture(t)
	ts := fx.server(t, fx.options(), "")
	res, body := get(t, ts.URL, "/sessions/"+fxSession, "Origin", "http://evil.example")
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d; want 403", res.StatusCode)
	}
	if strings.Contains(body, fxFile) {
		t.Errorf("refusal shows session data: %q", body)
	}
	res, _ = get(t, ts.URL, "/sessions/"+fxSession, "Origin", ts.URL)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("own origin: status %d; want 200", res.StatusCode)
	}
}

func TestTokenRequiredByServer(t *testing.T) {
	fx := newFixture(t)
	ts := fx.server(t, fx.options(), "s3cret")
	res, _ := get(t, ts.URL, "/decisions")
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without token: status %d; want 401", res.StatusCode)
	}
	res, body := get(t, ts.URL, "/decisions", "Authorization", "Bearer s3cret")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, fxPendingSlug) {
		t.Fatalf("with token: status %d; want 200 with the page", res.StatusCode)
	}
}
