package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/planq-dev/planq/hooks/claude"
	"github.com/planq-dev/planq/transcript"
)

// vaultQuiet is how long a transcript must have been left unchanged before
// doctor counts its uncopied lines: a session in the middle of a turn has
// some, which its stop copies.
const vaultQuiet = 10 * time.Minute

// vaultCheck weighs Claude Code's cleanup (cleanupPeriodDays) against the
// vault: it warns when Claude Code transcripts of the project's sessions
// hold lines planq has not copied yet, saying when the cleanup deletes the
// first and how to copy them now. ok is false when the project has no
// session store, or Claude Code keeps no transcripts here (no check).
func vaultCheck(root string, getenv func(string) string, now time.Time) (check, bool) {
	ts, err := projectStore(root, getenv)
	if err != nil {
		return check{}, false
	}
	projects := claude.ProjectsDir(claude.ConfigDir(getenv))
	for _, dir := range []string{ts.ProjectDir(), projects} {
		if _, err := os.Stat(dir); err != nil {
			return check{}, false
		}
	}
	c := check{Name: "vault"}
	cl := claude.CleanupOf(root, getenv)
	rule := fmt.Sprintf("Claude Code deletes its transcripts %d days after their last change (cleanupPeriodDays, %s)", cl.Days, cleanupSource(cl, getenv))
	if cl.Days == 0 {
		rule = fmt.Sprintf("Claude Code keeps its transcripts (cleanupPeriodDays in %s is not a whole number of days, so its cleanup is off)", tildePath(cl.From, getenv))
	}
	lags, err := ts.Behind()
	if err != nil {
		return check{Name: "vault", Detail: err.Error(), Fix: "planq doctor's sessions check names the records to fix"}, true
	}
	var (
		at     []transcript.Lag
		missed int64
	)
	for _, l := range lags {
		if strings.HasPrefix(l.Source, projects+string(filepath.Separator)) && now.Sub(l.Modified) >= vaultQuiet {
			at = append(at, l)
			missed += l.Size - l.Copied
		}
	}
	if len(at) == 0 || cl.Days == 0 {
		c.OK = true
		c.Detail = "planq's store holds every Claude Code transcript of this project's sessions; " + rule
		if len(at) > 0 {
			c.Detail = fmt.Sprintf("%d Claude Code transcript(s) hold lines planq has not copied yet; %s", len(at), rule)
		}
		return c, true
	}
	first := at[0].Modified.Add(time.Duration(cl.Days) * 24 * time.Hour) // Behind lists the oldest first
	when := "at Claude Code's next start"
	if first.After(now) {
		when = fmt.Sprintf("on %s (in %s)", first.Format("2006-01-02"), days(first.Sub(now)))
	}
	c.Warn = true
	c.Detail = fmt.Sprintf("%d Claude Code transcript(s) of this project's sessions hold %s planq has not copied yet (the session crashed, or ended before its last turn was copied); %s, so the first goes %s",
		len(at), byteSize(missed), rule, when)
	c.Fix = "planq vault   (copies them into planq's store now)"
	return c, true
}

// cleanupSource says where cleanupPeriodDays comes from.
func cleanupSource(cl claude.Cleanup, getenv func(string) string) string {
	if cl.From == "" {
		return "the default"
	}
	return "set in " + tildePath(cl.From, getenv)
}

// tildePath writes path under the home directory as ~/….
func tildePath(path string, getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		if rel, err := filepath.Rel(h, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return path
}

// days says a duration in whole days, at least one.
func days(d time.Duration) string {
	n := max(1, int(d.Hours()/24))
	if n == 1 {
		return "1 day"
	}
	return fmt.Sprintf("%d days", n)
}
