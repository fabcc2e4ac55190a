package staterepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// MaxScratchSize is the largest scratch.md planq writes (256 KiB); a larger
// replace or append is refused whole.
const MaxScratchSize = 256 << 10

// ErrEmpty reports a required text that is empty.
var ErrEmpty = errors.New("empty")

// Log appends an entry of type typ (default implement) with status status
// (may be empty) and message as its Markdown body to the agent's
// changelog.md, as one commit.
func (s *Store) Log(ctx context.Context, message string, typ changelog.Type, status changelog.Status) (changelog.Entry, error) {
	if typ == "" {
		typ = changelog.TypeImplement
	}
	if typ == changelog.TypeLearning || typ == changelog.TypeDecision {
		return changelog.Entry{}, fmt.Errorf("type %s goes to %s; use %s instead of a log entry", typ, fileFor(typ), map[changelog.Type]string{changelog.TypeLearning: "learn", changelog.TypeDecision: "decide"}[typ])
	}
	if err := requireText("message", message); err != nil {
		return changelog.Entry{}, err
	}
	e := changelog.Entry{Type: typ, Status: status, Body: message}
	return s.appendEntry(ctx, ChangelogFile, e, fmt.Sprintf("log: %s %s", typ, quoteTitle(message)))
}

// Learn appends a learning — insight, then the optional context that prompted
// it — to the agent's learnings.md.
func (s *Store) Learn(ctx context.Context, insight, context string) (changelog.Entry, error) {
	if err := requireText("insight", insight); err != nil {
		return changelog.Entry{}, err
	}
	body := strings.TrimSpace(insight)
	if c := strings.TrimSpace(context); c != "" {
		body += "\n\n" + c
	}
	e := changelog.Entry{Type: changelog.TypeLearning, Body: body}
	return s.appendEntry(ctx, LearningsFile, e, "learn: "+quoteTitle(insight))
}

// Decide appends a decision — what was chosen, the alternatives it was
// chosen over, and why — to the agent's decisions.md.
func (s *Store) Decide(ctx context.Context, decision string, over []string, because string) (changelog.Entry, error) {
	if err := requireText("decision", decision); err != nil {
		return changelog.Entry{}, err
	}
	var alts []string
	for _, a := range over {
		if a = strings.TrimSpace(a); a != "" {
			alts = append(alts, a)
		}
	}
	d := strings.TrimSpace(decision)
	e := changelog.Entry{Type: changelog.TypeDecision, Decision: text.FirstLine(d), Alternatives: alts, Rationale: strings.TrimSpace(because)}
	if strings.Contains(d, "\n") {
		e.Body = d // keep the full text; the field holds its first line
	}
	return s.appendEntry(ctx, DecisionsFile, e, "decide: "+quoteTitle(decision))
}

// Handoff appends a handoff entry (status pending) to the agent's
// changelog.md: summary as the body, next steps as a list, and to naming the
// agent meant to continue ("" for whoever continues this agent). A handoff
// to another agent is also appended to global's changelog.md, so that agent
// sees it in its context without a promotion.
func (s *Store) Handoff(ctx context.Context, summary string, nextSteps []string, to string) (changelog.Entry, error) {
	if err := requireText("summary", summary); err != nil {
		return changelog.Entry{}, err
	}
	if to != "" {
		if err := ValidAgentName(to); err != nil {
			return changelog.Entry{}, fmt.Errorf("to: %w", err)
		}
	}
	var steps []string
	for _, st := range nextSteps {
		if st = strings.TrimSpace(st); st != "" {
			steps = append(steps, st)
		}
	}
	e := changelog.Entry{Type: changelog.TypeHandoff, Status: changelog.StatusPending, Body: summary, NextSteps: steps, To: to}
	msg := "handoff: " + quoteTitle(summary)
	if to != "" {
		msg = fmt.Sprintf("handoff to %s: %s", to, quoteTitle(summary))
	}
	out, err := s.appendEntry(ctx, ChangelogFile, e, msg)
	if err != nil || to == "" || to == s.Agent {
		return out, err
	}
	_, err = s.updateGlobal(ctx, fmt.Sprintf("handoff from %s to %s: %s", s.Agent, to, quoteTitle(summary)), func(tx *Tx) error {
		return appendEntryBytes(tx, ChangelogFile, out)
	})
	if err != nil {
		return out, fmt.Errorf("handoff saved on %s, but not on global: %w", s.Branch(), err)
	}
	return out, nil
}

// ScratchMode says how Scratch changes scratch.md.
type ScratchMode string

// The scratch modes.
const (
	ScratchReplace ScratchMode = "replace" // the content replaces scratch.md
	ScratchAppend  ScratchMode = "append"  // the content is added at its end
)

// Scratch replaces or appends to the agent's scratch.md and returns its new
// size in bytes.
func (s *Store) Scratch(ctx context.Context, content string, mode ScratchMode) (int, error) {
	if mode == "" {
		mode = ScratchReplace
	}
	if mode != ScratchReplace && mode != ScratchAppend {
		return 0, fmt.Errorf("scratch mode %q: use replace or append", mode)
	}
	if !utf8.ValidString(content) {
		return 0, errors.New("scratch content is not valid UTF-8")
	}
	if strings.ContainsRune(content, 0) {
		return 0, errors.New("scratch content contains a NUL byte")
	}
	if mode == ScratchAppend && strings.TrimSpace(content) == "" {
		return 0, fmt.Errorf("scratch content is %w; nothing to append", ErrEmpty)
	}
	size := 0
	_, err := s.Update(ctx, fmt.Sprintf("scratch: %s (%d bytes)", mode, len(content)), func(tx *Tx) error {
		var data []byte
		if mode == ScratchAppend {
			old, _, err := tx.Read(ScratchFile)
			if err != nil {
				return err
			}
			data = append(data, old...)
			if len(data) > 0 && data[len(data)-1] != '\n' {
				data = append(data, '\n')
			}
		}
		data = append(data, content...)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		if len(data) > MaxScratchSize {
			return fmt.Errorf("%w: scratch.md would be %d bytes, the limit is %d; replace it with a shorter summary or put long material in notes/", ErrTooLarge, len(data), MaxScratchSize)
		}
		size = len(data)
		return tx.Write(ScratchFile, data)
	})
	return size, err
}

// appendEntry stamps e with the agent, the time and (for changelog.md) the
// previous entry as parent, and appends it to file as one commit.
func (s *Store) appendEntry(ctx context.Context, file string, e changelog.Entry, msg string) (changelog.Entry, error) {
	e.Agent = s.Agent
	e.Timestamp = s.now().UTC()
	if err := changelog.Validate(e); err != nil {
		return e, entryError(err)
	}
	var out changelog.Entry
	_, err := s.Update(ctx, msg, func(tx *Tx) error {
		e := e
		if file == ChangelogFile {
			old, _, err := tx.Read(file)
			if err != nil {
				return err
			}
			own, _ := tailEntries(old, handoffWindow)
			if len(own) > 0 && own[0].Agent == e.Agent {
				e.Parent = own[0].ID
			}
			if e.Type != changelog.TypeHandoff {
				// The first entry after a handoff acknowledges it.
				global, err := s.globalTail(tx.r, ChangelogFile, handoffWindow)
				if err != nil {
					return err
				}
				if h := pendingHandoff(e.Agent, own, global); h != nil {
					e.DependsOn = append(e.DependsOn, h.ID)
				}
			}
		}
		var err error
		out, err = marshalAppend(tx, file, e)
		return err
	})
	return out, err
}

// globalTail returns the newest n entries of global's file, newest first.
func (s *Store) globalTail(r *gitstore.Repo, file string, n int) ([]changelog.Entry, error) {
	rd := &reader{s: s, r: r, trees: map[string]plumbing.Hash{}, roots: map[string]*gitstore.Root{}}
	es, _, err := rd.tailEntriesOf(GlobalBranch, file, n)
	return es, err
}

// appendEntryBytes appends an already stamped entry to file.
func appendEntryBytes(tx *Tx, file string, e changelog.Entry) error {
	_, err := marshalAppend(tx, file, e)
	return err
}

func marshalAppend(tx *Tx, file string, e changelog.Entry) (changelog.Entry, error) {
	var buf bytes.Buffer
	out, err := changelog.Append(&buf, e)
	if err != nil {
		return out, entryError(err)
	}
	old, _, err := tx.Read(file)
	if err != nil {
		return out, err
	}
	var sep []byte
	switch n := len(old); {
	case n == 0:
	case old[n-1] != '\n':
		sep = []byte("\n\n")
	case n == 1 || old[n-2] != '\n':
		sep = []byte("\n")
	}
	return out, appendSegmented(tx, file, append(sep, buf.Bytes()...))
}

// entryError shortens the changelog package's validation errors for people.
func entryError(err error) error {
	if errors.Is(err, changelog.ErrBodyTooLarge) {
		return fmt.Errorf("%w; put long material in a file under notes/ or artifacts/ and log a summary", err)
	}
	return err
}

// entryStart is how every entry planq writes begins.
var entryStart = []byte("\n---\nid: pq-")

// tailEntries parses the last n entries of data, newest first, reading only
// as much of its end as it needs, and returns the problems found there.
// Line numbers are the file's.
func tailEntries(data []byte, n int) ([]changelog.Entry, []changelog.Problem) {
	if n <= 0 || len(data) == 0 {
		return nil, nil
	}
	window := 16 << 10
	for {
		start := 0
		if len(data) > window {
			cut := len(data) - window
			i := bytes.Index(data[cut:], entryStart)
			if i >= 0 {
				start = cut + i + 1
			}
		}
		es, probs := changelog.ParseBytes(data[start:])
		if len(es) >= n || start == 0 {
			if len(es) > n {
				es = es[len(es)-n:]
			}
			lines := 0
			if start > 0 {
				lines = bytes.Count(data[:start], []byte("\n"))
			}
			out := make([]changelog.Entry, len(es))
			for i := range es {
				e := es[i]
				if e.Line > 0 {
					e.Line += lines
				}
				out[len(es)-1-i] = e
			}
			for i := range probs {
				probs[i].Line += lines
			}
			return out, probs
		}
		window *= 4
	}
}

// requireText refuses empty or whitespace-only text.
func requireText(name, v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("%s is %w; say what to record", name, ErrEmpty)
	}
	return nil
}

// quoteTitle returns the first line of s, cut to 60 characters, quoted, for
// commit messages.
func quoteTitle(s string) string {
	t := text.FirstLine(s)
	t = strings.TrimLeft(t, "#>*- ")
	if utf8.RuneCountInString(t) > 60 {
		r := []rune(t)
		t = string(r[:59]) + "…"
	}
	return fmt.Sprintf("%q", t)
}

// fileFor returns the file entries of type t live in.
func fileFor(t changelog.Type) string {
	switch t {
	case changelog.TypeLearning:
		return LearningsFile
	case changelog.TypeDecision:
		return DecisionsFile
	}
	return ChangelogFile
}

// updateGlobal commits fn's changes on the global branch.
func (s *Store) updateGlobal(ctx context.Context, msg string, fn func(*Tx) error) (string, error) {
	h, err := func() (plumbing.Hash, error) {
		lk, err := s.lockAndRecover(ctx)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		defer lk.Release()
		if _, err := s.initLocked(ctx); err != nil {
			return plumbing.ZeroHash, err
		}
		return s.updateLocked(ctx, GlobalBranch, msg, fn)
	}()
	if err == nil {
		s.AutoMaintain()
	}
	return h.String(), err
}
