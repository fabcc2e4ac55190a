package staterepo

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/changelog"
)

func TestLogLearnDecideHandoffWriteEntriesAndCommits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("")
	c := ctx(t)
	first, err := s.Log(c, "Add Redis backend", changelog.TypeImplement, changelog.StatusCompleted)
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Log(c, "## Wire the cache\n\nInto the session middleware.", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if second.Parent != first.ID {
		t.Errorf("parent = %q, want %q", second.Parent, first.ID)
	}
	if _, err := s.Learn(c, "Always check token expiry before validation", "learned from the auth bug"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decide(c, "Use RS256", []string{"HS256", "sessions"}, "public key verification"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Handoff(c, "Continue with the API tests", []string{"write tests", "run them"}, ""); err != nil {
		t.Fatal(err)
	}
	got := e.git(s.Worktree, "log", "--format=%s")
	want := strings.Join([]string{
		`handoff: "Continue with the API tests"`,
		`decide: "Use RS256"`,
		`learn: "Always check token expiry before validation"`,
		`log: implement "Wire the cache"`,
		`log: implement "Add Redis backend"`,
		`create agent main`,
	}, "\n")
	if got != want {
		t.Errorf("commits:\n%s\nwant:\n%s", got, want)
	}
	if st := e.git(s.Worktree, "status", "--porcelain"); st != "" {
		t.Errorf("worktree not clean:\n%s", st)
	}
	// The files parse back with the changelog package.
	es, probs := changelog.ParseBytes([]byte(readFile(t, filepath.Join(s.Worktree, ChangelogFile))))
	if len(probs) > 0 || len(es) != 3 || es[0].Body != "Add Redis backend" || es[0].Status != changelog.StatusCompleted || es[2].Type != changelog.TypeHandoff {
		t.Errorf("changelog.md entries = %+v, problems %v", es, probs)
	}
	ds, _ := changelog.ParseBytes([]byte(readFile(t, filepath.Join(s.Worktree, DecisionsFile))))
	if len(ds) != 1 || ds[0].Decision != "Use RS256" || strings.Join(ds[0].Alternatives, ",") != "HS256,sessions" || ds[0].Rationale != "public key verification" {
		t.Errorf("decisions = %+v", ds)
	}
	ls, _ := changelog.ParseBytes([]byte(readFile(t, filepath.Join(s.Worktree, LearningsFile))))
	if len(ls) != 1 || ls[0].Type != changelog.TypeLearning || !strings.Contains(ls[0].Body, "auth bug") {
		t.Errorf("learnings = %+v", ls)
	}
	e.git(s.Bare, "fsck", "--strict")
}

func TestBadInputIsRefusedAndNothingIsWritten(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("")
	c := ctx(t)
	if _, err := s.Log(c, "first", "", ""); err != nil {
		t.Fatal(err)
	}
	before := e.git(s.Bare, "rev-parse", "agent-main")
	huge := strings.Repeat("x", changelog.MaxBodySize+1)
	cases := []struct {
		name string
		do   func() error
		want string
	}{
		{"empty message", func() error { _, err := s.Log(c, "  \n", "", ""); return err }, "message is empty"},
		{"bad type", func() error { _, err := s.Log(c, "x", "nonsense", ""); return err }, "unknown type"},
		{"bad status", func() error { _, err := s.Log(c, "x", "", "done"); return err }, "unknown status"},
		{"huge message", func() error { _, err := s.Log(c, huge, "", ""); return err }, "too large"},
		{"control chars in decision", func() error { _, err := s.Decide(c, "a\x1bb", nil, ""); return err }, "control character"},
		{"bad handoff target", func() error { _, err := s.Handoff(c, "x", nil, "../x"); return err }, "to: agent name"},
		{"huge scratch", func() error {
			_, err := s.Scratch(c, strings.Repeat("y", MaxScratchSize+1), ScratchReplace)
			return err
		}, "too large"},
		{"bad scratch mode", func() error { _, err := s.Scratch(c, "y", "prepend"); return err }, "use replace or append"},
		{"empty insight", func() error { _, err := s.Learn(c, "", "ctx"); return err }, "insight is empty"},
		{"NUL in a log message", func() error { _, err := s.Log(c, "a\x00b", "", ""); return err }, "NUL byte"},
		{"NUL in a learning's context", func() error { _, err := s.Learn(c, "insight", "x\x00"); return err }, "NUL byte"},
		{"NUL in a handoff", func() error { _, err := s.Handoff(c, "done\x00", nil, ""); return err }, "NUL byte"},
	}
	for _, tc := range cases {
		err := tc.do()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", tc.name, err)
		}
	}
	if after := e.git(s.Bare, "rev-parse", "agent-main"); after != before {
		t.Errorf("a refused write committed: %s -> %s", before, after)
	}
	if st := e.git(s.Worktree, "status", "--porcelain"); st != "" {
		t.Errorf("a refused write touched the worktree:\n%s", st)
	}
	for _, p := range []string{"../x", "/etc/passwd", "a/../../b", ".git/config", "a//b", "notes/\x00"} {
		if err := validPath(p); err == nil {
			t.Errorf("validPath(%q) accepted", p)
		}
	}
}

func TestScratchReplaceAndAppend(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("")
	c := ctx(t)
	if _, err := s.Scratch(c, "focus: auth", ScratchReplace); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Scratch(c, "next: tests", ScratchAppend); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(s.Worktree, ScratchFile)); got != "focus: auth\nnext: tests\n" {
		t.Errorf("scratch = %q", got)
	}
	if _, err := s.Scratch(c, "fresh", ScratchReplace); err != nil {
		t.Fatal(err)
	}
	if got := e.git(s.Worktree, "show", "HEAD:scratch.md"); got != "fresh" {
		t.Errorf("scratch at HEAD = %q", got)
	}
}

func TestContextSummaryNewestFirstWithinBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	clock := time.Date(2026, 1, 20, 10, 0, 0, 0, time.UTC)
	s := e.open("")
	s.now = func() time.Time { clock = clock.Add(time.Minute); return clock }
	c := ctx(t)
	for i := 0; i < 30; i++ {
		if _, err := s.Log(c, "step "+string(rune('A'+i%26))+strings.Repeat(" detail", 20), "", ""); err != nil {
			t.Fatal(err)
		}
	}
	s.Learn(c, "Run just check before committing", "")
	s.Decide(c, "Use RS256", []string{"HS256"}, "public keys")
	s.Scratch(c, "Investigating the auth bug", ScratchReplace)
	sum, err := s.Context(c, ContextOptions{LogEntries: 5, NoDetect: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Log) != 5 || !sum.Log[0].Time.After(sum.Log[4].Time) {
		t.Fatalf("log = %+v", sum.Log)
	}
	if sum.Scratch != "Investigating the auth bug" || len(sum.Learnings) != 1 || len(sum.Decisions) != 1 {
		t.Errorf("summary = %+v", sum)
	}
	if sum.CodeBranch != "main" {
		t.Errorf("code branch = %q", sum.CodeBranch)
	}
	md := sum.Markdown()
	for _, want := range []string{"agent main", "Investigating the auth bug", "**Use RS256** over HS256", "Run just check"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	// A small budget keeps the newest entries and says what it left out.
	small, err := s.Context(c, ContextOptions{LogEntries: 30, Budget: 1500, NoDetect: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(small.Markdown()); n > 1500 {
		t.Errorf("markdown is %d bytes over a 1500 budget", n)
	}
	if len(small.Log) == 0 || len(small.Log) >= 30 || small.Log[0].ID != sum.Log[0].ID || len(small.Omitted) == 0 {
		t.Errorf("small summary: %d log entries, omitted %v", len(small.Log), small.Omitted)
	}
}

func TestPendingHandoffToAnotherAgentReachesIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.open("alice")
	c := ctx(t)
	if _, err := a.Log(c, "did the groundwork", "", ""); err != nil {
		t.Fatal(err)
	}
	h, err := a.Handoff(c, "Bob: finish the API tests", []string{"add auth tests"}, "bob")
	if err != nil {
		t.Fatal(err)
	}
	b := e.open("bob")
	sum, err := b.Context(c, ContextOptions{NoDetect: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Handoff == nil || sum.Handoff.ID != h.ID || sum.Handoff.Source != "global" {
		t.Fatalf("bob's handoff = %+v", sum.Handoff)
	}
	if !strings.Contains(sum.Markdown(), "Pending handoff (from alice") {
		t.Errorf("markdown:\n%s", sum.Markdown())
	}
	// Once bob logs work, the handoff is no longer pending.
	if _, err := b.Log(c, "started on the tests", changelog.TypeStart, ""); err != nil {
		t.Fatal(err)
	}
	sum, _ = b.Context(c, ContextOptions{NoDetect: true})
	if sum.Handoff != nil {
		t.Errorf("handoff still pending after bob logged work: %+v", sum.Handoff)
	}
	// Alice's own context does not show her handoff to bob as hers.
	if sa, _ := a.Context(c, ContextOptions{NoDetect: true}); sa.Handoff != nil {
		t.Errorf("alice sees %+v", sa.Handoff)
	}
}

func TestContextWithoutStateRepo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("")
	sum, err := s.Context(ctx(t), ContextOptions{NoDetect: true})
	if err != nil || sum.Initialized {
		t.Fatalf("Context = %+v, %v", sum, err)
	}
	if !strings.Contains(sum.Markdown(), "No state repo yet") {
		t.Errorf("markdown = %s", sum.Markdown())
	}
	if s.Initialized() {
		t.Error("Context created the state repo")
	}
	_ = errors.New
}

func TestAppendOnlyFilesRollOverIntoArchiveSegments(t *testing.T) {
	// Not parallel: it changes segmentSize, which every store reads.
	old := segmentSize
	segmentSize = 2000
	t.Cleanup(func() { segmentSize = old })
	e := newEnv(t)
	s := e.open("")
	c := ctx(t)
	var ids []string
	for i := 0; i < 40; i++ {
		en, err := s.Log(c, fmt.Sprintf("entry %02d with some words to fill the segment", i), "", "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, en.ID)
	}
	files := e.git(s.Worktree, "ls-files")
	if !strings.Contains(files, "archive/changelog-000001.md") || !strings.Contains(files, "archive/changelog-000002.md") {
		t.Fatalf("no archive segments:\n%s", files)
	}
	if n := len(readFile(t, filepath.Join(s.Worktree, ChangelogFile))); n > 2000 {
		t.Errorf("live changelog.md is %d bytes", n)
	}
	if st := e.git(s.Worktree, "status", "--porcelain"); st != "" {
		t.Errorf("worktree not clean:\n%s", st)
	}
	all, probs, err := s.LogEntries(c, 0)
	if err != nil || len(probs) > 0 || len(all) != 40 || all[0].ID != ids[39] || all[39].ID != ids[0] {
		t.Fatalf("LogEntries(0): %d entries, problems %v, err %v", len(all), probs, err)
	}
	// Parent links cross segment boundaries.
	for i := 1; i < 40; i++ {
		if all[39-i].Parent != ids[i-1] {
			t.Errorf("entry %d parent = %s, want %s", i, all[39-i].Parent, ids[i-1])
		}
	}
	newest, _, err := s.LogEntries(c, 25)
	if err != nil || len(newest) != 25 || newest[24].ID != ids[15] {
		t.Errorf("LogEntries(25) = %d entries, err %v", len(newest), err)
	}
}
