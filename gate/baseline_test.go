package gate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/jj"
)

func write(t *testing.T, dir, rel string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(rel+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func checkDeclared(t *testing.T, repo string) Escapes {
	t.Helper()
	e, err := CheckDeclared(context.Background(), jj.New(repo), repo)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestCheckDeclared walks the check at declaration through a session's
// life: what changes while locked is named once; what the user wrote
// before the session, what was written while declared, and what a session
// that ended left behind are not.
func TestCheckDeclared(t *testing.T) {
	jjEnv(t)

	t.Run("named once", func(t *testing.T) {
		repo := newRepo(t)
		write(t, repo, "before.txt")
		runJJ(t, repo, "status") // the session-start hook's snapshot
		if err := SessionStarted(repo, "s1", "", true); err != nil {
			t.Fatal(err)
		}
		if !Pending(repo) {
			t.Error("a session starting locked is not pending")
		}
		write(t, repo, "escaped.txt")
		runJJ(t, repo, "describe", "-m", "Declared by hand")
		e := checkDeclared(t, repo)
		if !e.Checked || e.Partial || !slices.Equal(e.Files, []string{"escaped.txt"}) {
			t.Fatalf("check = %+v, want escaped.txt only", e)
		}
		if n := e.Note(); !strings.Contains(n, "Changed while the gate was locked: 1 file (escaped.txt)") {
			t.Errorf("note = %q", n)
		}
		if Pending(repo) {
			t.Error("still pending after the check")
		}
		write(t, repo, "declared.txt")
		runJJ(t, repo, "status")
		if e := checkDeclared(t, repo); !e.Checked || len(e.Files) != 0 || e.Note() != "" {
			t.Errorf("second check = %+v, want nothing new", e)
		}
	})

	t.Run("a resumed or compacted session keeps its baseline", func(t *testing.T) {
		repo := newRepo(t)
		runJJ(t, repo, "status")
		if err := SessionStarted(repo, "s1", "", true); err != nil {
			t.Fatal(err)
		}
		write(t, repo, "escaped.txt")
		runJJ(t, repo, "status") // the next start's snapshot records it
		if err := SessionStarted(repo, "s1", "", true); err != nil {
			t.Fatal(err)
		}
		if err := SessionStarted(repo, "sub", "s1", true); err != nil { // a subagent
			t.Fatal(err)
		}
		runJJ(t, repo, "describe", "-m", "Declared")
		if e := checkDeclared(t, repo); !slices.Equal(e.Files, []string{"escaped.txt"}) {
			t.Errorf("check = %+v, want escaped.txt", e)
		}
	})

	t.Run("between sessions the files are the user's", func(t *testing.T) {
		repo := newRepo(t)
		runJJ(t, repo, "status")
		if err := SessionStarted(repo, "s1", "", true); err != nil {
			t.Fatal(err)
		}
		if err := SessionEnded(repo, "s1"); err != nil {
			t.Fatal(err)
		}
		write(t, repo, "users.txt")
		runJJ(t, repo, "describe", "-m", "Declared by the user")
		if e := checkDeclared(t, repo); e.Checked || len(e.Files) != 0 {
			t.Errorf("check after the session ended = %+v, want none", e)
		}
		// A new session starts afresh.
		write(t, repo, "more.txt")
		runJJ(t, repo, "new")
		if err := SessionStarted(repo, "s2", "", true); err != nil {
			t.Fatal(err)
		}
		runJJ(t, repo, "describe", "-m", "Declared")
		if e := checkDeclared(t, repo); !e.Checked || len(e.Files) != 0 {
			t.Errorf("check in the new session = %+v, want nothing", e)
		}
	})

	t.Run("a forged or missing baseline checks nothing", func(t *testing.T) {
		repo := newRepo(t)
		if e := checkDeclared(t, repo); e.Checked {
			t.Errorf("no baseline: %+v", e)
		}
		runJJ(t, repo, "status")
		if err := SessionStarted(repo, "s1", "", true); err != nil {
			t.Fatal(err)
		}
		var b Baseline
		data, _ := os.ReadFile(filepath.Join(repo, ".jj", BaselineFile))
		if err := json.Unmarshal(data, &b); err != nil {
			t.Fatal(err)
		}
		b.Session = "someone-else" // the signature no longer matches
		data, _ = json.Marshal(b)
		if err := os.WriteFile(filepath.Join(repo, ".jj", BaselineFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, ok := ReadBaseline(repo); ok {
			t.Error("a baseline changed by hand verifies")
		}
	})

	t.Run("the gate seen locked marks a check worth making", func(t *testing.T) {
		repo := newRepo(t)
		runJJ(t, repo, "describe", "-m", "Declared at start")
		if err := SessionStarted(repo, "s1", "", false); err != nil {
			t.Fatal(err)
		}
		if Pending(repo) {
			t.Fatal("a session starting declared is pending")
		}
		runJJ(t, repo, "new") // locks
		if st, err := State(context.Background(), repo); err != nil || !st.Locked {
			t.Fatalf("state after jj new: %+v, %v", st, err)
		}
		if !Pending(repo) {
			t.Error("the gate read locked did not mark the baseline pending")
		}
	})
}
