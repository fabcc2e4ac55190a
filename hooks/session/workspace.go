package session

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/transcript"
)

// SubagentReport says what the workspaces made for ev's session's
// subagents hold, once each: their change ids, first lines and diff stats,
// and how to fold them in. It is "" when there is nothing new to say.
func SubagentReport(ctx context.Context, e Env, ev Event) (string, error) {
	s, root, err := OpenLineage(e, ev)
	if s == nil {
		return "", err
	}
	var report []string
	_, err = s.TS.Update(ctx, root, func(sess *transcript.Session) error {
		for i := range sess.Workspaces {
			w := &sess.Workspaces[i]
			if !w.Subagent || w.Reported || w.By != ev.SessionID {
				continue
			}
			report = append(report, describeWorkspace(ctx, e, s.JJ, *w))
			w.Reported = true
		}
		return nil
	})
	if err != nil || len(report) == 0 {
		return "", err
	}
	return "planq: your subagents' work is in jj changes of their own, one per workspace:\n" + strings.Join(report, "\n") +
		"\nFold one into your change with " + ev.Host.Tool("jj_squash") + ` {"from": "<change id>"}, or leave it as a sibling change to push on its own.`, nil
}

// describeWorkspace is one line of SubagentReport: the workspace's change
// (snapshotted first, in the workspace, so the subagent's last edits are
// in it), its first line and its diff stat's summary.
func describeWorkspace(ctx context.Context, e Env, repo *jj.Client, w transcript.Workspace) string {
	c := repo
	if st, err := os.Stat(w.Path); err == nil && st.IsDir() {
		c = &jj.Client{Dir: w.Path, Bin: e.JJBin}
	}
	ch, err := c.Show(ctx, w.Change)
	if err != nil {
		return fmt.Sprintf("- %s (workspace %s): not in the graph any more (%s)", jj.ShortID(w.Change), w.Name, text.OneLine(err.Error()))
	}
	stat := "no changes"
	if !ch.Empty {
		if out, err := c.DiffStat(ctx, ch.CommitID); err == nil {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			stat = strings.TrimSpace(lines[len(lines)-1])
		}
	}
	return fmt.Sprintf("- %s (workspace %s at %s): %s; %s", jj.ShortID(ch.ChangeID), w.Name, w.Path, ch.Title(), stat)
}
