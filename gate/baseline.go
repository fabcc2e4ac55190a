package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/internal/atomicfile"
	"github.com/planq-dev/planq/jj"
)

// The check at declaration: when a session declares its change, every
// file that changed in the working copy while the gate was locked is
// named, to the model and the user, and counted in the metrics as a gate
// escape. Nothing should have: while locked the gate lets no tool write the
// project. A file named was written behind the gate's back, by a command
// the gate misjudged, by the host itself, or by the user.
//
// What changed is read from jj's own record (jj.SnapshotsSince): the
// snapshots of the working copy since the baseline whose @ had no
// description. The baseline is the operation at which the session started
// (the session-start hook records it after its snapshot) and, after a
// check, the operation the check ended at. It is kept in the workspace's
// .jj directory, signed like the gate's cache.

// BaselineFile holds the baseline, inside the workspace's .jj directory.
const BaselineFile = "planq-gate-baseline.json"

// Baseline is where the next check at declaration starts.
type Baseline struct {
	// Ops are jj's operation heads after the session started or the last
	// check ran: the working copy's snapshots after them are checked.
	Ops []string `json:"ops"`
	// Session is the agent session whose start set the baseline; Ended
	// says it ended, and nothing runs behind the gate until the next
	// session starts.
	Session string `json:"session,omitempty"`
	Ended   bool   `json:"ended,omitempty"`
	// Pending says the gate was seen locked since the last check, so a
	// declaration made by hand (jj describe in a shell) is worth a check.
	Pending bool   `json:"pending,omitempty"`
	Sig     string `json:"sig"`
}

func (b Baseline) signed(root string) []string {
	return []string{root, strings.Join(b.Ops, ","), b.Session, fmt.Sprint(b.Ended), fmt.Sprint(b.Pending)}
}

func baselinePath(root string) string { return filepath.Join(root, ".jj", BaselineFile) }

// ReadBaseline returns the workspace's baseline when planq recorded one
// (its signature verifies).
func ReadBaseline(root string) (Baseline, bool) {
	secret, err := stateKey()
	if err != nil {
		return Baseline{}, false
	}
	data, err := os.ReadFile(baselinePath(root))
	if err != nil || len(data) > 1<<20 {
		return Baseline{}, false
	}
	var b Baseline
	if json.Unmarshal(data, &b) != nil || len(b.Ops) == 0 || !verify(secret, b.Sig, BaselineFile, b.signed(root)...) {
		return Baseline{}, false
	}
	return b, true
}

func writeBaseline(root string, b Baseline) error {
	secret, err := stateKey()
	if err != nil {
		return err
	}
	b.Sig = sign(secret, BaselineFile, b.signed(root)...)
	data, err := json.Marshal(b)
	if err != nil {
		return err
	}
	// Not synced, like the cache: a baseline lost in a crash costs one
	// check at declaration, never a wrong verdict.
	return atomicfile.WriteUnsynced(baselinePath(root), data, 0o600)
}

// SessionStarted records the baseline of a session starting in the
// workspace at root, after the session-start hook's jj process recorded
// the files as they are: jj's operation heads, read from disk. A session
// resumed, cleared or compacted (the same id), or a subagent of the one
// that set the baseline, keeps a baseline still to be checked, so what
// changed before it is still named at the declaration. locked says @ has
// no description.
func SessionStarted(root, session, parent string, locked bool) error {
	ops, err := jj.OpHeads(root)
	if err != nil {
		return err
	}
	if b, ok := ReadBaseline(root); ok && !b.Ended && b.Pending && b.Session != "" && (b.Session == session || b.Session == parent) {
		return nil
	}
	return writeBaseline(root, Baseline{Ops: ops, Session: session, Pending: locked})
}

// SessionEnded records that the session that set the workspace's baseline
// ended.
func SessionEnded(root, session string) error {
	b, ok := ReadBaseline(root)
	if !ok || b.Session != session || b.Ended || session == "" {
		return nil
	}
	b.Ended = true
	return writeBaseline(root, b)
}

// MarkLocked records that the gate was seen locked, when the baseline did
// not say so yet. Best effort: the mark only decides whether a declaration
// made by hand is checked.
func MarkLocked(root string) {
	if b, ok := ReadBaseline(root); ok && !b.Pending && !b.Ended {
		b.Pending = true
		_ = writeBaseline(root, b)
	}
}

// Pending reports whether the workspace's baseline says the gate was seen
// locked since the last check: a declaration seen now is worth a check.
func Pending(root string) bool {
	b, ok := ReadBaseline(root)
	return ok && b.Pending && !b.Ended
}

// Escapes is what a check at declaration found.
type Escapes struct {
	// Checked is false when there was nothing to check from: no session
	// started in the workspace since planq kept baselines, or it ended.
	Checked bool `json:"checked"`
	// Files changed in the working copy while the gate was locked,
	// repo-relative.
	Files []string `json:"files,omitempty"`
	// Partial says the baseline was not found among the operations read
	// (thousands ran since): Files covers the newest ones.
	Partial bool `json:"partial,omitempty"`
}

// CheckDeclared is the check at declaration, run after the change was
// declared in the workspace at root (the declaration's own jj commands
// recorded the working copy as it was, its description still empty): it
// returns the files that changed while the gate was locked since the
// baseline, and moves the baseline to now. A failure to read jj is an
// error, and the baseline stays for the next check.
func CheckDeclared(ctx context.Context, c *jj.Client, root string) (Escapes, error) {
	b, ok := ReadBaseline(root)
	if !ok || b.Ended {
		return Escapes{}, nil
	}
	snaps, err := c.SnapshotsSince(ctx, b.Ops)
	if err != nil {
		return Escapes{}, fmt.Errorf("check what changed while the gate was locked: %w", err)
	}
	if snaps.Head != "" {
		b.Ops = []string{snaps.Head}
	}
	b.Pending = false
	if err := writeBaseline(root, b); err != nil {
		return Escapes{}, err
	}
	return Escapes{Checked: true, Files: snaps.Files, Partial: !snaps.Complete}, nil
}

// maxNamed bounds the files a note names.
const maxNamed = 10

// Note says what the check found, in one paragraph for the model or the
// user; "" when nothing changed while the gate was locked.
func (e Escapes) Note() string {
	if len(e.Files) == 0 {
		return ""
	}
	names := e.Files
	more := ""
	if len(names) > maxNamed {
		names, more = names[:maxNamed], fmt.Sprintf(" and %d more", len(e.Files)-maxNamed)
	}
	n := "1 file"
	if len(e.Files) > 1 {
		n = fmt.Sprintf("%d files", len(e.Files))
	}
	return fmt.Sprintf("Changed while the gate was locked: %s (%s%s). While locked the gate lets no tool write the project, so these were written "+
		"behind its back: by a command it misjudged, by the host, or by the user. Check them with `jj diff` before going on, and undo what should not be there.",
		n, strings.Join(names, ", "), more)
}
