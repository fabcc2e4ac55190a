package ui_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
	"github.com/planq-dev/planq/ui"
)

// A session lineage's change shows on the Changes page even once trunk has
// taken it in, and a lineage record naming abandoned or malformed changes
// does not break the page.
func TestUIChangesShowLineagesInTrunk(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.Clone(t, testenv.RemoteWithMain(t))
	run := func(args ...string) string { return testenv.Run(t, repo, "jj", args...) }
	run("new", "main", "-m", "Lineage work in trunk already")
	testenv.WriteFile(t, repo, "lineage.go", "package main\n")
	lineage := strings.TrimSpace(run("log", "--no-graph", "-r", "@", "-T", "change_id"))
	run("new", "-m", "Later work")
	run("bookmark", "set", "main", "-r", "@")
	run("config", "set", "--repo", `revset-aliases."trunk()"`, "main")
	run("new", "-m", "Work after trunk")
	if out := run("log", "--no-graph", "-r", ui.ChangesRevset, "-T", "description"); strings.Contains(out, "Lineage work") {
		t.Fatalf("the lineage change is in %s already; the test shows nothing:\n%s", ui.ChangesRevset, out)
	}

	st, err := staterepo.Open(staterepo.Options{Dir: repo, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := transcript.New(st.Home, st.Project)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Update(context.Background(), lineage, func(s *transcript.Session) error {
		s.Task = "Lineage work in trunk already"
		s.AddChange(lineage)
		s.AddChange("kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk") // abandoned since
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// A hand-edited record: its ids must never become revset text.
	dir, err := ts.Dir(lineage)
	if err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, transcript.SessionFile)
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"`, `"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk", "x\") | all() | (\"y"`, 1)
	if edited == string(data) {
		t.Fatalf("no abandoned id to edit in %s:\n%s", rec, data)
	}
	if err := os.WriteFile(rec, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}

	s, base := startServer(t, repo)
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar}).Get(base + "/changes?token=" + s.Token())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /changes: %s\n%s", resp.Status, page)
	}
	for _, want := range []string{"Work after trunk", "Later work", "Lineage work in trunk already"} {
		if !strings.Contains(page, want) {
			t.Errorf("the Changes page does not show %q:\n%s", want, page)
		}
	}
}
