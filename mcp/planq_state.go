package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/staterepo"
)

// stateDeps is what the planq_* state tools share: the directory, and the
// search indexes the server keeps warm between calls.
type stateDeps struct {
	dir        string
	maintainer string // the planq binary for background maintenance
	mu         sync.Mutex
	searchers  map[string]*staterepo.Searcher // by state repo and agent
	branch     branchCache
}

// branchCache remembers the code branch for a jj operation, so planq_context
// runs jj only when the repo changed.
type branchCache struct {
	mu     sync.Mutex
	key    string
	branch string
}

func newStateDeps(dir, maintainer string) *stateDeps {
	return &stateDeps{dir: dir, maintainer: maintainer, searchers: map[string]*staterepo.Searcher{}}
}

// store opens the state store for the server's directory. The agent is
// resolved on every call (PLANQ_AGENT, config, the worktree), so the server
// follows `planq create` without a restart.
func (d *stateDeps) store() (*staterepo.Store, error) {
	s, err := staterepo.Open(staterepo.Options{Dir: d.dir, Maintainer: d.maintainer})
	if err != nil {
		return nil, userErrorf("planq state is unavailable here: %s", err.Error())
	}
	return s, nil
}

// searcher returns the warm index for s's repo and agent.
func (d *stateDeps) searcher(s *staterepo.Store) *staterepo.Searcher {
	d.mu.Lock()
	defer d.mu.Unlock()
	key := s.Bare + "\x00" + s.Agent
	x, ok := d.searchers[key]
	if !ok {
		x = staterepo.NewSearcher(s)
		d.searchers[key] = x
	}
	return x
}

// warm starts filling the search index of the server's state repo in the
// background, so the first planq_search is answered from a warm index.
func (d *stateDeps) warm() {
	s, err := staterepo.Open(staterepo.Options{Dir: d.dir})
	if err != nil || !s.Initialized() {
		return
	}
	d.searcher(s).Warm()
}

// codeBranch returns the code branch, asking jj only when its operation
// heads changed since the last call.
func (d *stateDeps) codeBranch(ctx context.Context, s *staterepo.Store) string {
	key := staterepo.CodeStateKey(s.Root)
	d.branch.mu.Lock()
	defer d.branch.mu.Unlock()
	if key != "" && key == d.branch.key {
		return d.branch.branch
	}
	b := staterepo.CodeBranch(ctx, s.Root, false)
	d.branch.key, d.branch.branch = key, b
	return b
}

// stateTools returns the planq_* tools in a stable order.
func stateTools(d *stateDeps) []server.ServerTool {
	return []server.ServerTool{
		planqContextTool(d),
		planqScratchTool(d),
		planqLogTool(d),
		planqLearnTool(d),
		planqDecideTool(d),
		planqHandoffTool(d),
		planqCheckpointTool(d),
		planqSearchTool(d),
	}
}

// stateHandler adapts a typed state-tool handler to mcp-go, turning errors
// into one-line messages for the model.
func stateHandler[In any, Out rendered](h func(ctx context.Context, in In) (Out, error)) server.ToolHandlerFunc {
	return typedHandler(explainState, h)
}

// explainState words a state error for the model: staterepo's messages
// already say what is wrong and what to do.
func explainState(err error) string {
	var ue userError
	switch {
	case errors.As(err, &ue):
		return ue.msg
	case errors.Is(err, staterepo.ErrLockTimeout):
		return "The state repo is busy (another planq process holds its lock). Retry in a moment. " + err.Error()
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "Cancelled before the state was written; nothing changed."
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

// withEnums adds "enum" lists to top-level properties of a tool's input
// schema, so the model sees the allowed values.
func withEnums(t mcp.Tool, enums map[string][]string) mcp.Tool {
	var schema map[string]any
	if err := json.Unmarshal(t.RawInputSchema, &schema); err != nil {
		return t
	}
	props, _ := schema["properties"].(map[string]any)
	for name, vals := range enums {
		p, ok := props[name].(map[string]any)
		if !ok {
			continue
		}
		if p["type"] == "array" {
			if items, ok := p["items"].(map[string]any); ok {
				items["enum"] = vals
			}
			continue
		}
		p["enum"] = vals
	}
	if b, err := json.Marshal(schema); err == nil {
		t.RawInputSchema = b
	}
	return t
}

// logTypes are the entry types planq_log accepts (learnings and decisions
// have their own tools).
var logTypes = []string{string(changelog.TypeStart), string(changelog.TypePlan), string(changelog.TypeImplement), string(changelog.TypeHandoff), string(changelog.TypeEnd)}

// statuses are the entry statuses.
var statuses = []string{string(changelog.StatusPending), string(changelog.StatusInProgress), string(changelog.StatusCompleted), string(changelog.StatusBlocked)}

// EntryOutput is the result of a tool that appended an entry.
type EntryOutput struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Status string `json:"status,omitempty"`
	Agent  string `json:"agent"`
	File   string `json:"file"`
	Acked  string `json:"acknowledged_handoff,omitempty"`
}

// Text renders the result for the model.
func (o EntryOutput) Text() string {
	s := fmt.Sprintf("Recorded %s %s in %s (agent %s).", o.Type, o.ID, o.File, o.Agent)
	if o.Acked != "" {
		s += fmt.Sprintf(" It acknowledges handoff %s.", o.Acked)
	}
	return s
}

func entryOutput(e changelog.Entry, file string) EntryOutput {
	o := EntryOutput{ID: e.ID, Type: string(e.Type), Status: string(e.Status), Agent: e.Agent, File: file}
	if e.Type != changelog.TypeHandoff && len(e.DependsOn) > 0 {
		o.Acked = e.DependsOn[len(e.DependsOn)-1]
	}
	return o
}
