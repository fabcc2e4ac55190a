package metrics

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/project"
)

// The kinds of record.
const (
	KindStart       = "start"        // a session started (session-start hook); Declared: its change already was
	KindGate        = "gate"         // the gate's verdict on a tool call (pre-tool-use hook)
	KindDeclared    = "declared"     // a hook saw the session's change declared after jj moved
	KindTool        = "tool"         // a planq MCP tool call (the server); Err: it failed
	KindSurface     = "surface"      // learnings and decisions shown to the model
	KindWrite       = "write"        // text the agent wrote through a planq tool
	KindEmptySearch = "empty-search" // a planq_search that found nothing
	KindEscapes     = "escapes"      // the check at a declaration: the files that changed while the gate was locked (Files, Count; none is the good case)
)

// The gate's verdicts, as a gate record names them.
const (
	VerdictAllow = "allow"
	VerdictDeny  = "deny"
	VerdictWarn  = "warn" // gate.mode: warn (or gate.on_error: allow) let through what it would have denied
)

// The places a learning or decision is surfaced.
const (
	WhereSessionStart = "session-start"
	WhereContext      = "planq_context"
	WhereSearch       = "planq_search"
)

// The kinds of surfaced entry.
const (
	EntryLearning = "learning"
	EntryDecision = "decision"
)

// Bounds that keep every record one small write.
const (
	MaxRecord  = 4096 // bytes of one record line, newline included
	maxText    = 2048 // bytes of a write record's text
	maxTitle   = 120  // bytes of a surfaced entry's title
	maxQuery   = 200  // bytes of a search query
	maxEntries = 10   // surfaced entries per record; more are split over records
	maxField   = 128  // bytes of a session id, tool, rule or host name
	maxFiles   = 10   // file names an escapes record keeps
	maxPath    = 200  // bytes of one of them
)

// Record is one metrics event. Which fields are set depends on Kind.
type Record struct {
	Time     time.Time `json:"t"`
	Kind     string    `json:"k"`
	Session  string    `json:"s,omitempty"`    // the host's session id
	Host     string    `json:"host,omitempty"` // the agent host ("claude", "opencode", …)
	Tool     string    `json:"tool,omitempty"`
	Rule     string    `json:"rule,omitempty"` // gate: the class of rule that decided (gate.Rule*)
	Verdict  string    `json:"v,omitempty"`    // gate: allow, deny or warn
	Declared bool      `json:"declared,omitempty"`
	Err      bool      `json:"err,omitempty"`   // tool: the call failed
	Where    string    `json:"where,omitempty"` // surface: session-start, planq_context or planq_search
	Entries  []Entry   `json:"e,omitempty"`     // surface
	Query    string    `json:"q,omitempty"`     // empty-search
	Text     string    `json:"text,omitempty"`  // write: the text, spaces folded, cut to 2 KiB
	Files    []string  `json:"files,omitempty"` // escapes: the first files that changed while the gate was locked
	Count    int       `json:"n,omitempty"`     // escapes: how many files did
}

// Entry is a learning or decision shown to the model.
type Entry struct {
	ID    string `json:"id"`   // pq-…
	Kind  string `json:"kind"` // learning or decision
	Title string `json:"title,omitempty"`
}

// EscapesRecord is the record of a check at declaration (gate.CheckDeclared)
// made by tool: the files that changed while the gate was locked, none in
// the good case.
func EscapesRecord(tool, session, host string, files []string) Record {
	return Record{Kind: KindEscapes, Tool: tool, Session: session, Host: host, Files: files, Count: len(files)}
}

// Off reports whether the environment turns recording off
// (PLANQ_METRICS=off); every writer asks it first. Reading what was
// recorded stays possible.
func Off(getenv func(string) string) bool {
	if getenv == nil {
		getenv = os.Getenv
	}
	return getenv("PLANQ_METRICS") == "off"
}

// Dir returns PLANQ_HOME/metrics/<project>.
func Dir(home, project string) string { return filepath.Join(home, "metrics", project) }

// DirFor returns the metrics directory of the project that dir belongs to:
// the project of its jj workspace (or of dir itself outside one), as
// project.Locate finds it. It reads files only.
func DirFor(dir string, getenv func(string) string) (string, error) {
	root, ok := jj.FindRoot(dir)
	if !ok {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		root = abs
	}
	loc, err := project.Locate(root, getenv)
	if err != nil {
		return "", err
	}
	return Dir(loc.Home, loc.Name), nil
}

// dayLayout names a day file.
const dayLayout = "2006-01-02"

// dayFile is the file of the UTC day of t in dir.
func dayFile(dir string, t time.Time) string {
	return filepath.Join(dir, t.UTC().Format(dayLayout)+".jsonl")
}

// Append appends recs to dir, each to the file of its UTC day with one
// O_APPEND write (a record without a time gets the current one). Nothing
// is synced. Callers on a hook's path drop the error: metrics never fail
// a hook.
func Append(dir string, recs ...Record) error {
	var (
		f    *os.File
		name string
		errs []error
	)
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	for _, r := range recs {
		if r.Time.IsZero() {
			r.Time = time.Now()
		}
		for _, part := range r.split() {
			line, err := part.line()
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if p := dayFile(dir, part.Time); p != name {
				if f != nil {
					f.Close()
				}
				if f, err = openAppend(p); err != nil {
					name = ""
					errs = append(errs, err)
					continue
				}
				name = p
			}
			if _, err := f.Write(line); err != nil {
				errs = append(errs, fmt.Errorf("metrics: write %s: %w", name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// openAppend opens a day file for appending, creating it (and its
// directory) when missing. The files are the user's own: 0600 in 0700.
func openAppend(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
		f, err = os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return f, nil
}

// split returns r as records of at most maxEntries entries each.
func (r Record) split() []Record {
	if len(r.Entries) <= maxEntries {
		return []Record{r}
	}
	var out []Record
	for es := r.Entries; len(es) > 0; {
		n := min(len(es), maxEntries)
		part := r
		part.Entries = es[:n]
		out = append(out, part)
		es = es[n:]
	}
	return out
}

// line encodes r as one line of at most MaxRecord bytes, its free text
// cut to its bounds (and shorter when escaping makes it too long).
func (r Record) line() ([]byte, error) {
	r.Time = r.Time.UTC()
	for _, s := range []*string{&r.Kind, &r.Session, &r.Host, &r.Tool, &r.Rule, &r.Verdict, &r.Where} {
		*s = cut(*s, maxField)
	}
	r.Query = cut(strings.TrimSpace(r.Query), maxQuery)
	r.Text = cut(text.OneLine(r.Text), maxText)
	if len(r.Files) > 0 {
		fs := make([]string, 0, min(len(r.Files), maxFiles))
		for _, f := range r.Files[:min(len(r.Files), maxFiles)] {
			fs = append(fs, cut(text.OneLine(f), maxPath))
		}
		r.Files = fs
	}
	if len(r.Entries) > 0 {
		es := make([]Entry, len(r.Entries))
		for i, e := range r.Entries {
			es[i] = Entry{ID: cut(e.ID, maxField), Kind: cut(e.Kind, maxField), Title: cut(text.OneLine(e.Title), maxTitle)}
		}
		r.Entries = es
	}
	for {
		b, err := r.appendJSON(nil)
		if err != nil {
			return nil, fmt.Errorf("metrics: encode a %s record: %w", r.Kind, err)
		}
		if len(b) <= MaxRecord {
			return b, nil
		}
		switch {
		case r.Text != "":
			r.Text = cut(r.Text, len(r.Text)/2)
		case r.Query != "":
			r.Query = cut(r.Query, len(r.Query)/2)
		case longestTitle(r.Entries) > 0:
			n := longestTitle(r.Entries) / 2
			for i := range r.Entries {
				r.Entries[i].Title = cut(r.Entries[i].Title, n)
			}
		default:
			return nil, fmt.Errorf("metrics: a %s record takes %d bytes, more than %d", r.Kind, len(b), MaxRecord)
		}
	}
}

func longestTitle(es []Entry) int {
	n := 0
	for _, e := range es {
		n = max(n, len(e.Title))
	}
	return n
}

// cut returns s as valid UTF-8 within n bytes, cut at a character
// boundary.
func cut(s string, n int) string { return text.Prefix(strings.ToValidUTF8(s, ""), n) }
