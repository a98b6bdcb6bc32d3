package web

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/baton-cli/baton/internal/i18n"
)

// DefaultAddr is where the dashboard listens unless told otherwise.
const DefaultAddr = "127.0.0.1:7433"

// TokenCookie carries the access token once a browser has shown it.
const TokenCookie = "baton_token"

// Errors of CheckBind.
var (
	// ErrRemote means the address is not a loopback one and remote access
	// was not allowed.
	ErrRemote = errors.New("address is not a loopback address")
	// ErrNoToken means remote access was asked for without a token.
	ErrNoToken = errors.New("remote access needs a token")
)

// CheckBind refuses to listen on addr when that would expose the dashboard
// without the person asking for it: an address that is not a loopback one
// needs allowRemote, and then a token.
func CheckBind(addr string, allowRemote bool, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", addr, err)
	}
	if Loopback(host) {
		return nil
	}
	if !allowRemote {
		return fmt.Errorf("%s: %w", addr, ErrRemote)
	}
	if token == "" {
		return fmt.Errorf("%s: %w", addr, ErrNoToken)
	}
	return nil
}

// Loopback reports whether host names the loopback interface only:
// "localhost" or a loopback IP. An empty host means every interface.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Hosts are the Host header values that name a server listening on addr:
// host:port for the address itself; for a loopback address also
// localhost, 127.0.0.1 and [::1]; for a wildcard address every address of
// the machine's interfaces and the names given (such as its host name).
func Hosts(addr net.Addr, names ...string) []string {
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return []string{normalHost(addr.String())}
	}
	port := strconv.Itoa(ta.Port)
	var hosts []string
	add := func(h string) {
		if h == "" {
			return
		}
		hp := normalHost(net.JoinHostPort(h, port))
		for _, x := range hosts {
			if x == hp {
				return
			}
		}
		hosts = append(hosts, hp)
	}
	switch {
	case ta.IP.IsLoopback():
		add(ta.IP.String())
		add("localhost")
		add("127.0.0.1")
		add("::1")
	case ta.IP == nil || ta.IP.IsUnspecified():
		add("localhost")
		add("127.0.0.1")
		add("::1")
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if ipn, ok := a.(*net.IPNet); ok {
					add(ipn.IP.String())
				}
			}
		}
		for _, n := range names {
			add(n)
		}
	default:
		add(ta.IP.String())
		for _, n := range names {
			add(n)
		}
	}
	return hosts
}

// normalHost lowercases host:port and adds the default port when missing.
func normalHost(h string) string {
	h = strings.ToLower(h)
	if _, _, err := net.SplitHostPort(h); err != nil {
		if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
			h = "[" + h + "]"
		}
		return h + ":80"
	}
	return h
}

// Guard decides which requests reach the pages. Its zero value refuses
// everything (no Host is its own).
type Guard struct {
	// Hosts are the Host header values (host:port) that name this server;
	// see Hosts.
	Hosts []string
	// Token, when not empty, must come with every request: the
	// TokenCookie cookie, an "Authorization: Bearer" header or a "token"
	// query parameter (which sets the cookie).
	Token string
	// Lang is the language of the refusals.
	Lang i18n.Lang
}

var (
	msgBadHost   = i18n.Msg{JA: "このサーバーのアドレスではないホスト名での要求は受け付けません。", EN: "Requests for a host name other than this server's address are refused."}
	msgBadOrigin = i18n.Msg{JA: "他のサイトからの要求は受け付けません。", EN: "Requests from other sites are refused."}
	msgNeedToken = i18n.Msg{JA: "アクセスにはトークンが必要です。baton serve が表示した URL を開いてください。", EN: "A token is needed: open the URL that baton serve printed."}
	msgMethod    = i18n.Msg{JA: "このダッシュボードは読み取り専用です。", EN: "The dashboard is read-only."}
)

// Wrap returns next behind the guard. Every response, refusals included,
// carries the security headers.
func (g Guard) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header())
		if !g.ownHost(r.Host) {
			refuse(w, http.StatusForbidden, msgBadHost.In(g.Lang))
			return
		}
		if !g.sameOrigin(r) {
			refuse(w, http.StatusForbidden, msgBadOrigin.In(g.Lang))
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			refuse(w, http.StatusMethodNotAllowed, msgMethod.In(g.Lang))
			return
		}
		if g.Token != "" {
			switch g.tokenOf(r) {
			case tokenMissing:
				refuse(w, http.StatusUnauthorized, msgNeedToken.In(g.Lang))
				return
			case tokenInQuery:
				// Keep the token out of the address bar and history: set
				// the cookie and send the browser to the same page without it.
				http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: g.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
				u := *r.URL
				q := u.Query()
				q.Del("token")
				u.RawQuery = q.Encode()
				http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (g Guard) ownHost(host string) bool {
	if host == "" {
		return false
	}
	h := normalHost(host)
	for _, x := range g.Hosts {
		if x == h {
			return true
		}
	}
	return false
}

// sameOrigin refuses a request sent by a page of another origin: one whose
// Origin header, when present, is not http://<one of Hosts>, and a
// cross-site request that is not the person following a link.
func (g Guard) sameOrigin(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Scheme != "http" || u.Path != "" || !g.ownHost(u.Host) {
			return false
		}
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" && r.Header.Get("Sec-Fetch-Mode") != "navigate" {
		return false
	}
	return true
}

type tokenState int

const (
	tokenMissing tokenState = iota
	tokenGiven
	tokenInQuery
)

// tokenOf says whether r carries the token and how.
func (g Guard) tokenOf(r *http.Request) tokenState {
	if c, err := r.Cookie(TokenCookie); err == nil && g.match(c.Value) {
		return tokenGiven
	}
	if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && g.match(strings.TrimSpace(v)) {
		return tokenGiven
	}
	if v := r.URL.Query().Get("token"); v != "" && g.match(v) {
		return tokenInQuery
	}
	return tokenMissing
}

func (g Guard) match(v string) bool {
	return subtle.ConstantTimeCompare([]byte(v), []byte(g.Token)) == 1
}

// ContentSecurityPolicy allows the page's own style sheet, script and
// images only: no inline script or style, no framing, no form posts
// elsewhere.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// refuse answers with a short plain-text reason.
func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}
