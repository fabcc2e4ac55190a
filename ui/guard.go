package ui

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strconv"
)

// ContentSecurityPolicy is sent with every response: only the server's own
// scripts, styles and fetches; no inline script, no framing, no plugins.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// TokenParam is the query parameter that carries the token on first load.
const TokenParam = "token"

// cookieName is the token cookie of the server on port: cookies do not
// tell ports apart, so two `planq ui` on one machine keep their own.
func cookieName(port int) string { return "planq_ui_" + strconv.Itoa(port) }

// guard wraps every route with the safety checks, in order: the security
// headers; a Host header naming this server (127.0.0.1:PORT or
// localhost:PORT, so a page on another name that resolves to 127.0.0.1 — DNS
// rebinding — gets nothing); the token, from the URL (then set as an
// HttpOnly, SameSite=Strict cookie and dropped from the URL by a redirect)
// or from that cookie; and GET or HEAD only, since nothing here changes
// anything.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")

		s.mu.Lock()
		hostOK, port := s.hosts[r.Host], s.port
		s.mu.Unlock()
		if !hostOK {
			http.Error(w, "planq ui: wrong Host header: open the address planq ui printed (127.0.0.1:PORT)", http.StatusMisdirectedRequest)
			return
		}
		if tok := r.URL.Query().Get(TokenParam); tok != "" {
			if !s.tokenOK(tok) {
				http.Error(w, "planq ui: wrong token: open the address planq ui printed", http.StatusForbidden)
				return
			}
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				methodNotAllowed(w)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookieName(port), Value: s.token, Path: "/",
				HttpOnly: true, SameSite: http.SameSiteStrictMode})
			// Drop the token from the address bar and history.
			u := *r.URL
			q := u.Query()
			q.Del(TokenParam)
			u.RawQuery = q.Encode()
			http.Redirect(w, r, (&url.URL{Path: u.Path, RawQuery: u.RawQuery}).String(), http.StatusSeeOther)
			return
		}
		c, err := r.Cookie(cookieName(port))
		if err != nil || !s.tokenOK(c.Value) {
			http.Error(w, "planq ui: no token: open the address planq ui printed (it carries the token)", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			methodNotAllowed(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// tokenOK compares tok with the server's token in constant time.
func (s *Server) tokenOK(tok string) bool {
	return subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) == 1
}

func methodNotAllowed(w http.ResponseWriter) {
	w.Header().Set("Allow", "GET, HEAD")
	http.Error(w, "planq ui is read-only: only GET and HEAD", http.StatusMethodNotAllowed)
}
