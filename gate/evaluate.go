package gate

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/jj"
)

// Evaluation is everything the gate concluded about one tool call.
type Evaluation struct {
	Verdict  Verdict  `json:"verdict"`
	Decision Decision `json:"decision"`
	Mode     string   `json:"mode"`
	// State is the gate state, read only when the decision needed it.
	State *Status `json:"state,omitempty"`
	// Errors met on the way; the decision already accounts for them.
	StateErr  error `json:"-"`
	ConfigErr error `json:"-"`
}

// EvalOptions tune Evaluate.
type EvalOptions struct {
	// ProjectDir is the project root (CLAUDE_PROJECT_DIR), used for the
	// configuration and the repository boundary when dir is not in a jj repo.
	ProjectDir string
	// AssumeLocked judges the call as if the gate were locked, without
	// reading jj: the answer to "would this be blocked before declaring?".
	AssumeLocked bool
}

// Evaluate decides on one tool call made in dir, the way the PreToolUse hook
// does: built-in read-only tools are allowed at once; otherwise the
// configuration is read, the call classified, and the gate state read only
// when the call modifies.
func Evaluate(ctx context.Context, call ToolCall, dir string, opt EvalOptions) Evaluation {
	if ReadOnlyTool(call.Name) {
		v := Classify(call, DefaultPolicy())
		return Evaluation{Verdict: v, Decision: Decision{Allow: true}, Mode: config.ModeStrict}
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	root, isJJ := jj.FindRoot(dir)
	cfgRoot := root
	if !isJJ {
		cfgRoot = opt.ProjectDir
		if cfgRoot == "" {
			cfgRoot = dir
		}
	}
	cfg, cfgErr := config.Load(cfgRoot)
	pol := PolicyFromConfig(cfg)
	if cfgErr != nil {
		pol = DefaultPolicy()
	}
	if call.Root == "" {
		// The repository boundary for editor tools: the jj workspace, else
		// the project; never a bare working directory.
		call.Root = root
		if !isJJ {
			call.Root = opt.ProjectDir
		}
	}
	ev := Evaluation{Verdict: Classify(call, pol), Mode: pol.Mode, ConfigErr: cfgErr}
	if pol.Mode == config.ModeOff || !NeedsState(ev.Verdict) {
		ev.Decision = Decision{Allow: true}
		return ev
	}
	if cfgErr != nil {
		ev.Decision = Decision{Message: fmt.Sprintf("planq gate: blocked this %s call (%s): %s, and the gate's configuration is invalid: %s. "+
			"Ask the user to fix .planq/config.yaml; read-only calls stay allowed.", call.Name, ev.Verdict.Part, ev.Verdict.Reason, oneLine(cfgErr.Error()))}
		return ev
	}
	var st Status
	var stErr error
	if opt.AssumeLocked {
		st = Status{IsJJRepo: isJJ, Root: root, Locked: true}
	} else {
		st, stErr = State(ctx, dir)
	}
	ev.State, ev.StateErr = &st, stErr
	ev.Decision = Decide(call.Name, ev.Verdict, st, stErr, pol)
	return ev
}
