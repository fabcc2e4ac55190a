package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript/share"
)

// sessionSync is what a push or pull did with the session lineages; nil
// parts did not run.
type sessionSync struct {
	Shared bool              `json:"shared"` // state.sessions is shared
	Push   *share.PushResult `json:"push,omitempty"`
	Pull   *share.PullResult `json:"pull,omitempty"`
	Note   string            `json:"note,omitempty"`
}

// lines says in words what happened, one line each.
func (s *sessionSync) lines() []string {
	if s == nil {
		return nil
	}
	var out []string
	if p := s.Push; p != nil {
		for _, sh := range p.Shared {
			l := fmt.Sprintf("session %s: shared %d transcript lines", sh.Root, sh.Lines)
			if sh.Redactions > 0 {
				l += fmt.Sprintf(", %d secrets redacted", sh.Redactions)
			}
			out = append(out, l)
		}
		if len(p.Pushed) > 0 || len(p.Moved) > 0 {
			out = append(out, fmt.Sprintf("sessions: %d lineages pushed, %d up to date", len(p.Pushed), p.UpToDate))
		}
		for _, im := range p.Imported {
			out = append(out, fmt.Sprintf("session %s: %d lines from the remote", im.Root, im.Lines))
		}
	}
	if p := s.Pull; p != nil {
		for _, im := range p.Imported {
			out = append(out, fmt.Sprintf("session %s: %d lines from the remote", im.Root, im.Lines))
		}
		if len(p.Moved) > 0 {
			out = append(out, fmt.Sprintf("sessions: %d lineages updated, %d up to date", len(p.Moved), p.UpToDate))
		}
	}
	if s.Note != "" {
		out = append(out, s.Note)
	}
	return out
}

// sharer opens the session sharer of s's project.
func (a *app) sharer(s *staterepo.Store) (*share.Sharer, error) {
	sh, err := share.New(s)
	if err != nil {
		return nil, err
	}
	sh.Warn = a.warn
	return sh, nil
}

// pushSessions shares this machine's sessions and pushes the lineages,
// when the project shares them.
func (a *app) pushSessions(ctx context.Context, s *staterepo.Store) (*sessionSync, error) {
	out := &sessionSync{Shared: share.Enabled(s.Config)}
	if !out.Shared {
		if s.Config.State.Sessions == "" {
			out.Note = "sessions: not shared (`planq state share sessions on` shares them, secrets redacted)"
		}
		return out, nil
	}
	sh, err := a.sharer(s)
	if err != nil {
		return out, err
	}
	res, err := sh.Push(ctx)
	out.Push = &res
	if err != nil {
		return out, fmt.Errorf("sessions: %w", err)
	}
	return out, nil
}

// pullSessions fetches the lineages the remote has that differ here and
// imports them.
func (a *app) pullSessions(ctx context.Context, s *staterepo.Store) (*sessionSync, error) {
	out := &sessionSync{Shared: share.Enabled(s.Config)}
	sh, err := a.sharer(s)
	if err != nil {
		return out, err
	}
	res, err := sh.Pull(ctx, nil)
	out.Pull = &res
	if err != nil {
		return out, fmt.Errorf("sessions: %w", err)
	}
	return out, nil
}

// shareSessionsOptions are `planq state share sessions`'s flags.
type shareSessionsOptions struct {
	stateFlags
}

func newStateShareCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "share",
		Short: "Choose what of this project travels with the state remote",
		Long: `Choose what of this project travels with the state remote besides the state
branches. Today that is the agent sessions: 'planq state share sessions on'.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newStateShareSessionsCmd(a))
	return cmd
}

func newStateShareSessionsCmd(a *app) *cobra.Command {
	o := &shareSessionsOptions{}
	cmd := &cobra.Command{
		Use:   "sessions [on|off]",
		Short: "Share this project's agent sessions with the state remote, or stop",
		Long: `Share this project's agent sessions with the state remote (on), or keep them
on this machine (off, the default). Without an argument, say which it is.

Shared, 'planq state push' sends each session lineage's record (root change,
agent host and session id, workspace, times) and this machine's transcript
lines under refs/planq/sessions/<root change> in the state repo, redacted
first: API keys, tokens, private keys (gitleaks' rules), passwords in URLs and
the values of .env files an agent read become [REDACTED by planq: <rule>].
Your own copy under $PLANQ_HOME stays whole. A teammate who pulls the state
repo can then read a lineage with query_ancestor, see it in planq ui, and
resume it with planq resume. 'planq state status' says what the next push
would share.

Pulling teammates' sessions does not depend on this setting. It is stored as
state.sessions (shared or private) in .planq/config.yaml.`,
		Example: `  planq state share sessions on
  planq state share sessions        # says whether they are shared
  planq state share sessions off`,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: []string{"on", "off"},
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.openStore(o.Repo)
			if err != nil {
				return err
			}
			if len(args) == 1 {
				var v string
				switch strings.ToLower(args[0]) {
				case "on":
					v = config.SessionsShared
				case "off":
					v = config.SessionsPrivate
				default:
					return fmt.Errorf("%q: say on or off (planq state share sessions on)", args[0])
				}
				if err := config.Set(s.Root, "state.sessions", v); err != nil {
					return err
				}
				s.Config.State.Sessions = v
			}
			shared := share.Enabled(s.Config)
			if o.JSON {
				return writeJSON(a.Stdout, map[string]any{"sessions": map[bool]string{true: "shared", false: "private"}[shared]})
			}
			switch {
			case shared && s.Config.State.Remote == "":
				fmt.Fprintln(a.Stdout, "Sessions are shared, once there is a state remote: set one with `planq state remote URL`.")
			case shared:
				fmt.Fprintln(a.Stdout, "Sessions are shared: `planq state push` sends them, secrets redacted; `planq state status` says what it would send.")
			default:
				fmt.Fprintln(a.Stdout, "Sessions stay on this machine; `planq state share sessions on` shares them with the state remote.")
			}
			return nil
		},
	}
	o.addRepo(cmd)
	o.addJSON(cmd)
	return cmd
}

// askShareSessions settles state.sessions once, when a remote is set: from
// --share-sessions, else by asking on a terminal; a script that says
// nothing gets a note, and the question waits for the next time.
func (a *app) askShareSessions(s *staterepo.Store, flag string) error {
	v := ""
	switch strings.ToLower(flag) {
	case "on":
		v = config.SessionsShared
	case "off":
		v = config.SessionsPrivate
	case "":
		if s.Config.State.Sessions != "" {
			return nil
		}
		if !a.interactive() {
			fmt.Fprintln(a.Stderr, "planq: note: agent sessions are not shared with the state remote; `planq state share sessions on` shares them (secrets redacted)")
			return nil
		}
		fmt.Fprint(a.Stdout, "Share this project's agent sessions (records and transcripts, secrets redacted) with the state remote, so teammates can read and resume them? [y/N] ")
		answer, _ := bufio.NewReader(a.Stdin).ReadString('\n')
		v = config.SessionsPrivate
		if a := strings.ToLower(strings.TrimSpace(answer)); a == "y" || a == "yes" {
			v = config.SessionsShared
		}
	default:
		return fmt.Errorf("--share-sessions %q: say on or off", flag)
	}
	if err := config.Set(s.Root, "state.sessions", v); err != nil {
		return err
	}
	s.Config.State.Sessions = v
	if v == config.SessionsShared {
		fmt.Fprintln(a.Stdout, "Sessions are shared: `planq state push` sends them, secrets redacted.")
	} else {
		fmt.Fprintln(a.Stdout, "Sessions stay on this machine (`planq state share sessions on` changes that).")
	}
	return nil
}

// interactive reports whether planq's input and output are a terminal.
func (a *app) interactive() bool {
	in, ok := a.Stdin.(*os.File)
	out, ok2 := a.Stdout.(*os.File)
	if !ok || !ok2 {
		return false
	}
	for _, f := range []*os.File{in, out} {
		fi, err := f.Stat()
		if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			return false
		}
	}
	return true
}

// sessionsStatus is what `planq state status` says of the sessions.
type sessionsStatus struct {
	Shared  bool           `json:"shared"`
	Pending []share.Shared `json:"pending,omitempty"` // what the next push would share
	Bytes   int64          `json:"pending_bytes"`
	Error   string         `json:"error,omitempty"`
}

func (a *app) sessionsStatus(s *staterepo.Store) *sessionsStatus {
	out := &sessionsStatus{Shared: share.Enabled(s.Config)}
	sh, err := a.sharer(s)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	pending, err := sh.Pending()
	if err != nil {
		out.Error = text.FirstLine(err.Error())
	}
	out.Pending = pending
	for _, p := range pending {
		out.Bytes += p.Bytes
	}
	return out
}

// print writes the sessions part of `planq state status`.
func (st *sessionsStatus) print(a *app, remote string) {
	w := a.Stdout
	what := fmt.Sprintf("%d session lineages (%s of transcript lines, secrets redacted, and their records)", len(st.Pending), byteSize(st.Bytes))
	switch {
	case !st.Shared && len(st.Pending) == 0:
		fmt.Fprintln(w, "sessions: not shared (`planq state share sessions on` shares them)")
	case !st.Shared:
		fmt.Fprintf(w, "sessions: not shared; shared, the next push would send %s (`planq state share sessions on`)\n", what)
	case len(st.Pending) == 0:
		fmt.Fprintln(w, "sessions: shared; nothing new to push")
	case remote == "":
		fmt.Fprintf(w, "sessions: shared; %s wait for a state remote (`planq state remote URL`)\n", what)
	default:
		fmt.Fprintf(w, "sessions: shared; the next push sends %s:\n", what)
		for i, p := range st.Pending {
			if i == 10 {
				fmt.Fprintf(w, "  … and %d more\n", len(st.Pending)-10)
				break
			}
			fmt.Fprintf(w, "  %s  %-9s %s\n", p.Root[:12], byteSize(p.Bytes), text.FirstLine(p.Task))
		}
	}
	if st.Error != "" {
		fmt.Fprintf(w, "note: sessions: %s\n", st.Error)
	}
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
