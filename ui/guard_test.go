package ui_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/ui"
)

// startServer serves the UI of repo on a free loopback port until the test
// ends and returns it with its base address (http://127.0.0.1:PORT).
func startServer(t testing.TB, repo string) (*ui.Server, string) {
	t.Helper()
	s, err := ui.New(ui.Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	u, _ := url.Parse(s.URL())
	return s, "http://" + u.Host
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func do(t *testing.T, method, target string, edit func(*http.Request)) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(req)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func TestUISecurity(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	s, base := startServer(t, repo)
	port := strings.TrimPrefix(base, "http://127.0.0.1:")
	cookie := &http.Cookie{Name: "planq_ui_" + port, Value: s.Token()}
	withCookie := func(r *http.Request) { r.AddCookie(cookie) }

	tests := []struct {
		name   string
		method string
		path   string
		edit   func(*http.Request)
		want   int
		says   string
	}{
		{"no token", "GET", "/", nil, http.StatusForbidden, "no token"},
		{"no token on an asset", "GET", "/assets/app.js", nil, http.StatusForbidden, "no token"},
		{"no token on the event stream", "GET", "/events", nil, http.StatusForbidden, "no token"},
		{"wrong token in the URL", "GET", "/?token=0123", nil, http.StatusForbidden, "wrong token"},
		{"wrong token in the cookie", "GET", "/", func(r *http.Request) {
			r.AddCookie(&http.Cookie{Name: cookie.Name, Value: strings.Repeat("0", len(s.Token()))})
		}, http.StatusForbidden, "no token"},
		{"another server's cookie", "GET", "/", func(r *http.Request) {
			r.AddCookie(&http.Cookie{Name: "planq_ui_1", Value: s.Token()})
		}, http.StatusForbidden, "no token"},
		{"wrong Host (DNS rebinding)", "GET", "/", func(r *http.Request) { withCookie(r); r.Host = "evil.example:" + port },
			http.StatusMisdirectedRequest, "wrong Host"},
		{"wrong Host with the token", "GET", "/?token=" + s.Token(), func(r *http.Request) { r.Host = "evil.example:" + port },
			http.StatusMisdirectedRequest, "wrong Host"},
		{"right host, wrong port", "GET", "/", func(r *http.Request) { withCookie(r); r.Host = "127.0.0.1:1" },
			http.StatusMisdirectedRequest, "wrong Host"},
		{"POST", "POST", "/", withCookie, http.StatusMethodNotAllowed, "read-only"},
		{"PUT with the token", "PUT", "/?token=" + s.Token(), nil, http.StatusMethodNotAllowed, "read-only"},
		{"DELETE", "DELETE", "/state", withCookie, http.StatusMethodNotAllowed, "read-only"},
		{"GET with the cookie", "GET", "/", withCookie, http.StatusOK, "Agents"},
		{"localhost with the cookie", "GET", "/metrics", func(r *http.Request) { withCookie(r); r.Host = "localhost:" + port },
			http.StatusOK, "Local metrics"},
		{"HEAD with the cookie", "HEAD", "/changes", withCookie, http.StatusOK, ""},
		{"a rev that is a revset", "GET", "/change/diff?rev=all()", withCookie, http.StatusBadRequest, "give a change id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := do(t, tt.method, base+tt.path, tt.edit)
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
			if !strings.Contains(body, tt.says) {
				t.Errorf("body %q lacks %q", body, tt.says)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); csp != ui.ContentSecurityPolicy {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q", got)
			}
		})
	}
}

func TestUITokenInURLBecomesCookie(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	s, base := startServer(t, repo)
	resp, _ := do(t, "GET", base+"/state?kind=learnings&token="+s.Token(), nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d, want 303", resp.StatusCode)
	}
	if loc := resp.Header.Get("Location"); loc != "/state?kind=learnings" {
		t.Errorf("redirect to %q: the token should leave the address bar, the rest stay", loc)
	}
	var c *http.Cookie
	for _, k := range resp.Cookies() {
		c = k
	}
	if c == nil || c.Value != s.Token() || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Fatalf("cookie %+v: want the token, HttpOnly, SameSite=Strict, Path=/", c)
	}
	resp, body := do(t, "GET", base+"/state?kind=learnings", func(r *http.Request) { r.AddCookie(c) })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("with the cookie: status %d: %s", resp.StatusCode, body)
	}
}

func TestUIStrictContentSecurityPolicy(t *testing.T) {
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "connect-src 'self'"} {
		if !strings.Contains(ui.ContentSecurityPolicy, want) {
			t.Errorf("policy lacks %q", want)
		}
	}
	if strings.Contains(ui.ContentSecurityPolicy, "unsafe-") {
		t.Errorf("policy allows unsafe sources: %s", ui.ContentSecurityPolicy)
	}
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	s, base := startServer(t, repo)
	port := strings.TrimPrefix(base, "http://127.0.0.1:")
	withCookie := func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "planq_ui_" + port, Value: s.Token()}) }
	// The policy forbids inline script; every page must work with it: no
	// <script> without src, no on… handler attributes.
	scripts := regexp.MustCompile(`<script[^>]*>`)
	handlers := regexp.MustCompile(`<[^>]*\son[a-z]+=`)
	for _, p := range []string{"/", "/changes", "/transcript", "/state", "/metrics"} {
		resp, body := do(t, "GET", base+p, withCookie)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d: %s", p, resp.StatusCode, body)
		}
		for _, tag := range scripts.FindAllString(body, -1) {
			if !strings.Contains(tag, `src="/assets/`) {
				t.Errorf("%s has inline script %q, which the policy blocks", p, tag)
			}
		}
		if m := handlers.FindString(body); m != "" {
			t.Errorf("%s has an inline handler %q, which the policy blocks", p, m)
		}
	}
	for path, ctype := range map[string]string{"/assets/app.js": "text/javascript", "/assets/style.css": "text/css"} {
		resp, _ := do(t, "GET", base+path, withCookie)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), ctype) {
			t.Errorf("%s: status %d, Content-Type %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
}

func TestUIListenRefusesNonLoopback(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	s, err := ui.New(ui.Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.168.1.10:0", "example.com:0", "[::1]:0"} {
		ln, err := s.Listen(addr)
		if err == nil {
			ln.Close()
			t.Errorf("Listen(%q) bound %s; want it refused", addr, ln.Addr())
			continue
		}
		if !errors.Is(err, ui.ErrNotLoopback) {
			t.Errorf("Listen(%q): %v, want ErrNotLoopback", addr, err)
		}
	}
	ln, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if !strings.HasPrefix(ln.Addr().String(), "127.0.0.1:") {
		t.Errorf("bound %s", ln.Addr())
	}
	if u := s.URL(); !strings.HasPrefix(u, "http://"+ln.Addr().String()+"/?token="+s.Token()) {
		t.Errorf("URL %s", u)
	}
}
