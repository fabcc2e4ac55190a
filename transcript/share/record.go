package share

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/planq-dev/planq/transcript"
)

// recordVersion is the version of the shared record's format.
const recordVersion = 1

// Record is a lineage's record as one machine shares it: record.json in
// its directory of the lineage. It holds what a teammate needs to read and
// resume the lineage, and nothing of this machine's own bookkeeping.
type Record struct {
	Version int    `json:"version"`
	Root    string `json:"root"`   // the lineage's root change id
	Origin  string `json:"origin"` // the machine that shares it
	Task    string `json:"task,omitempty"`
	// Changes are the lineage's changes this machine knows, root first.
	Changes []string `json:"changes"`
	// Agents are the agent sessions that ran on this machine.
	Agents  []Agent   `json:"agent_sessions"`
	Files   []string  `json:"files,omitempty"`
	Created time.Time `json:"created"`
	// Lines is how many of this machine's transcript lines are shared,
	// and Redactions how many secrets were taken out of them.
	Lines      int64 `json:"lines"`
	Redactions int   `json:"redactions"`
}

// Agent is one agent session as shared.
type Agent struct {
	ID        string    `json:"id"`   // the host's session id
	Host      string    `json:"host"` // claude, opencode, codex, gemini, copilot
	Parent    string    `json:"parent,omitempty"`
	Change    string    `json:"change,omitempty"`    // the change it started on
	Workspace string    `json:"workspace,omitempty"` // the code repo it ran in, on its machine
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended,omitzero"`
}

// recordOf is the shareable part of sess, as origin shares it: its own
// agent sessions (not those that came from other machines).
func recordOf(sess *transcript.Session, origin string) Record {
	rec := Record{Version: recordVersion, Root: sess.Root, Origin: origin, Task: sess.Task,
		Changes: slices.Clone(sess.Changes), Files: slices.Clone(sess.Files), Created: sess.Created.UTC()}
	for _, a := range sess.Agents {
		if a.Origin != "" {
			continue
		}
		host := a.Host
		if host == "" {
			host = "claude"
		}
		rec.Agents = append(rec.Agents, Agent{ID: a.ID, Host: host, Parent: a.Parent, Change: a.Change,
			Workspace: a.Workspace, Started: a.Started.UTC(), Ended: a.Ended.UTC()})
	}
	if rec.Changes == nil {
		rec.Changes = []string{}
	}
	return rec
}

// encode renders the record as record.json holds it.
func (r Record) encode() []byte {
	data, _ := json.MarshalIndent(r, "", "  ")
	return append(data, '\n')
}

// errBadRecord marks a shared record planq does not take.
var errBadRecord = errors.New("invalid shared session record")

// parseRecord reads a record.json shared by origin for the lineage root.
func parseRecord(data []byte, root, origin string) (Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%w: %v", errBadRecord, err)
	}
	switch {
	case r.Root != root:
		return r, fmt.Errorf("%w: its root %q is not the lineage's %s", errBadRecord, r.Root, root)
	case r.Origin != origin:
		return r, fmt.Errorf("%w: its origin %q is not the directory's %s", errBadRecord, r.Origin, origin)
	case r.Version > recordVersion:
		return r, fmt.Errorf("%w: version %d is newer than this planq reads (%d); update planq", errBadRecord, r.Version, recordVersion)
	}
	for _, c := range r.Changes {
		if err := transcript.ValidChangeID(c); err != nil {
			return r, fmt.Errorf("%w: change: %v", errBadRecord, err)
		}
	}
	for _, a := range r.Agents {
		if err := transcript.ValidSessionID(a.ID); err != nil {
			return r, fmt.Errorf("%w: agent session: %v", errBadRecord, err)
		}
	}
	return r, nil
}

// merge takes rec's lineage into sess: its changes, files and agent
// sessions (marked as rec's origin's), and for a lineage this machine did
// not have, its task, creation time and origin.
func merge(sess *transcript.Session, rec Record, fresh bool) {
	if fresh {
		sess.Origin, sess.Created = rec.Origin, rec.Created
	}
	if sess.Task == "" {
		sess.Task = rec.Task
	}
	for _, c := range rec.Changes {
		sess.AddChange(c)
	}
	sess.AddFiles(rec.Files...)
	for _, a := range rec.Agents {
		i := slices.IndexFunc(sess.Agents, func(x transcript.Agent) bool { return x.ID == a.ID })
		if i >= 0 {
			if sess.Agents[i].Origin == rec.Origin {
				sess.Agents[i].Ended = a.Ended
			}
			continue // this machine's own session of that id (a resumed one) is its own record
		}
		sess.Agents = append(sess.Agents, transcript.Agent{ID: a.ID, Host: a.Host, Parent: a.Parent, Change: a.Change,
			Workspace: a.Workspace, Started: a.Started, Ended: a.Ended, Origin: rec.Origin})
	}
	slices.SortStableFunc(sess.Agents, func(a, b transcript.Agent) int { return a.Started.Compare(b.Started) })
}
