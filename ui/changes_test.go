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
	"github.com/planq-dev/planq/transcript"
	"github.com/planq-dev/planq/ui"
)

// A session lineage's changes show on its own Changes view (the link from
// the Overview and the Transcript page) even once trunk has taken them in,
// while the main Changes page asks jj only for trunk().. | trunk(),
// however many lineages there are; a lineage record naming abandoned
// changes is fine, and a hand-edited one is skipped and reported, never
// passed to jj.
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

	ts := openTranscripts(t, repo)
	if _, err := ts.Update(context.Background(), lineage, func(s *transcript.Session) error {
		s.Task = "Lineage work in trunk already"
		s.AddChange(lineage)
		s.AddChange("kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk") // abandoned since
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	s, base := startServer(t, repo)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	get := func(path string) string {
		t.Helper()
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		resp, err := client.Get(base + path + sep + "token=" + s.Token())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s\n%s", path, resp.Status, body)
		}
		return string(body)
	}
	contains := func(path, page string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("%s does not show %q:\n%s", path, w, page)
			}
		}
	}
	contains("/changes", get("/changes"), "Work after trunk", "Later work", `class="statline"`)
	// A later page has its stats too (from a second jj process).
	contains("/changes?skip=1", get("/changes?skip=1"), "Later work", `class="statline"`, "← newer")
	view := "/changes?lineage=" + lineage
	page := get(view)
	contains(view, page, "Lineage work in trunk already", "session lineage")
	if strings.Contains(page, "Work after trunk") || strings.Contains(page, `class="error"`) {
		t.Errorf("%s shows more than the lineage, or an error:\n%s", view, page)
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
	page = get(view)
	contains(view, page, "1 session record skipped", rec)
	if strings.Contains(page, "Invalid") || strings.Contains(page, "Later work") {
		t.Errorf("%s passed the edited record to jj:\n%s", view, page)
	}
	contains("/changes", get("/changes"), "Work after trunk", "Later work")
	contains("/", get("/"), "1 session record skipped", rec)
}
