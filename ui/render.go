package ui

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// assetHandler serves the embedded stylesheet and script.
func assetHandler() http.Handler {
	sub, _ := fs.Sub(assetFS, "assets")
	return http.FileServerFS(sub)
}

// markdown renders Markdown as GitHub does, without raw HTML (goldmark
// leaves it out unless told otherwise), so a description cannot inject markup.
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

// renderMarkdown renders src to safe HTML.
func renderMarkdown(src string) template.HTML {
	var b bytes.Buffer
	if err := markdown.Convert([]byte(src), &b); err != nil {
		return template.HTML(template.HTMLEscapeString(src))
	}
	return template.HTML(b.String()) // #nosec: goldmark escapes text and drops raw HTML
}

// renderInline renders a one-paragraph Markdown snippet (a summary item)
// without the paragraph around it.
func renderInline(src string) template.HTML {
	h := strings.TrimSpace(string(renderMarkdown(src)))
	if inner, ok := strings.CutPrefix(h, "<p>"); ok && strings.HasSuffix(inner, "</p>") && !strings.Contains(inner, "<p>") {
		h = strings.TrimSuffix(inner, "</p>")
	}
	return template.HTML(h) // from renderMarkdown: safe
}

// parseTemplates parses the embedded templates; now is the clock of their
// "ago" function.
func parseTemplates(now func() time.Time) (*template.Template, error) {
	funcs := template.FuncMap{
		"md":    renderMarkdown,
		"short": jj.ShortID,
		"stat":  func(s string) string { return jj.ParseStat(s).String() },
		"stamp": func(t time.Time) string {
			if t.IsZero() {
				return "-"
			}
			return t.Local().Format("2006-01-02 15:04")
		},
		"ago":  func(t time.Time) string { return text.Ago(now(), t) },
		"dur":  func(d time.Duration) string { return d.Round(time.Second).String() },
		"join": strings.Join,
		"add":  func(a, b int) int { return a + b },
		"from": fromOf,
	}
	t, err := template.New("ui").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("ui templates: %w", err)
	}
	return t, nil
}

// layout is what the page frame shows around a page's content.
type layout struct {
	Page    string        // overview, changes, transcript, state, metrics
	Title   string        // the page's title
	Project string        // the project's name
	Live    string        // the live-update events the content follows, space separated
	Content template.HTML // the page's content, rendered
}

// livePages says which events refresh which page.
var livePages = map[string]string{
	"overview":   EventJJ + " " + EventState,
	"changes":    EventJJ,
	"transcript": EventJJ,
	"state":      EventState,
	"metrics":    EventJJ + " " + EventState,
}

var titles = map[string]string{
	"overview": "Overview", "changes": "Changes", "transcript": "Transcript", "state": "State", "metrics": "Metrics",
}

// page serves a page: its data from fn rendered with the template of its
// name, inside the frame — or alone with ?fragment=1, which the page's
// script fetches on a live update.
func (s *Server) page(name string, fn func(*http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data, err := fn(r)
		if err != nil {
			http.Error(w, "planq ui: "+err.Error(), http.StatusBadRequest)
			return
		}
		var body bytes.Buffer
		if err := s.tmpl.ExecuteTemplate(&body, name, data); err != nil {
			http.Error(w, "planq ui: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Query().Get("fragment") == "1" {
			_, _ = w.Write(body.Bytes())
			return
		}
		var out bytes.Buffer
		l := layout{Page: name, Title: titles[name], Project: s.state.Project, Live: livePages[name],
			Content: template.HTML(body.String())} // rendered by html/template above
		if err := s.tmpl.ExecuteTemplate(&out, "layout", l); err != nil {
			http.Error(w, "planq ui: "+err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write(out.Bytes())
	}
}

// fragment serves a piece of a page the script loads on demand.
func (s *Server) fragment(name string, fn func(*http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data, err := fn(r)
		if err != nil {
			http.Error(w, "planq ui: "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := s.tmpl.ExecuteTemplate(w, name, data); err != nil {
			http.Error(w, "planq ui: "+err.Error(), http.StatusInternalServerError)
		}
	}
}
