package ui_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/staterepo"
)

// A state entry that does not parse (a hand edit, a bad merge) is left out
// of the State page and reported on it once; the others are shown.
func TestUIStateReportsBadEntries(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	ctx := context.Background()
	st := openState(t, repo, true)
	if _, err := st.Log(ctx, "Wrote the limiter", changelog.TypeImplement, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Update(ctx, "hand edit", func(tx *staterepo.Tx) error {
		data, _, err := tx.Read(staterepo.ChangelogFile)
		if err != nil {
			return err
		}
		return tx.Write(staterepo.ChangelogFile, append(data, "\n---\nid: pq-0000zzzz\ntimestamp: yesterday\nagent: main\ntype: bogus\n---\n\nA hand-edited entry\n"...))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Log(ctx, "Wired the router", changelog.TypeImplement, ""); err != nil {
		t.Fatal(err)
	}

	s, base := startServer(t, repo)
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar}).Get(base + "/state?branch=" + st.Branch() + "&kind=changelog&token=" + s.Token())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /state: %s\n%s", resp.Status, page)
	}
	for _, want := range []string{"Wrote the limiter", "Wired the router", "Read with 1 problem", "changelog.md", "bogus"} {
		if !strings.Contains(page, want) {
			t.Errorf("the State page does not show %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "A hand-edited entry") || strings.Count(page, `class="notice state-notes"`) != 1 {
		t.Errorf("the bad entry is shown, or reported other than once:\n%s", page)
	}
}
