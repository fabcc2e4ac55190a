package mcp

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/hosts"
	"github.com/planq-dev/planq/jj"
)

// wiringPlace is where the hosts' wiring of the server's repo is looked
// for: the repo (its root), the home, the environment.
func (d *deps) wiringPlace() conffile.Options {
	root, _ := jj.FindRoot(d.dir)
	getenv := d.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return conffile.Options{ProjectDir: root, Home: home, Getenv: getenv}
}

// PushInput is jj_push's input.
type PushInput struct {
	Bookmark string `json:"bookmark,omitempty" jsonschema:"Default main"`
	Remote   string `json:"remote,omitempty" jsonschema:"Default origin"`
	DryRun   bool   `json:"dry_run,omitempty" jsonschema:"Only show what would be pushed"`
}

// PushOutput is jj_push's result.
type PushOutput struct {
	Bookmark string       `json:"bookmark"`
	Remote   string       `json:"remote"`
	Target   string       `json:"target,omitempty"`
	Stack    []stackEntry `json:"stack"`
	Warnings []string     `json:"warnings,omitempty"`
	DryRun   bool         `json:"dry_run"`
	Pushed   bool         `json:"pushed"`
	Output   string       `json:"output,omitempty"`
}

// Text renders the result for the model.
func (o PushOutput) Text() string {
	var b strings.Builder
	switch {
	case o.Target == "":
		b.WriteString("Nothing to push: every change from trunk() to @ is empty.")
		return b.String()
	case o.DryRun:
		fmt.Fprintf(&b, "Dry run: would move %s to %s and push it to %s.", o.Bookmark, jj.ShortID(o.Target), o.Remote)
	default:
		fmt.Fprintf(&b, "Pushed %s (%s) to %s.", o.Bookmark, jj.ShortID(o.Target), o.Remote)
	}
	fmt.Fprintf(&b, "\nStack (%d changes, newest first):", len(o.Stack))
	for _, c := range o.Stack {
		fmt.Fprintf(&b, "\n  %s %s (%d files)", jj.ShortID(c.ChangeID), c.Title, len(c.Files))
	}
	for _, w := range o.Warnings {
		b.WriteString("\nWarning: " + w)
	}
	return b.String()
}

// stackEntry is one change jj_push sends.
type stackEntry struct {
	ChangeID string   `json:"change_id"`
	Title    string   `json:"title"`
	Files    []string `json:"files"`
}

// paths returns the paths of files.
func paths(files []jj.FileChange) []string {
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

func jjPushTool(d *deps) server.ServerTool {
	tool := newTool[PushInput, PushOutput]("jj_push",
		"Push trunk..last non-empty change: check descriptions, move the bookmark, jj git push.",
		hints{idempotent: true, openWorld: true})
	return server.ServerTool{Tool: tool, Handler: toolHandler(d, func(ctx context.Context, in PushInput) (PushOutput, error) {
		if err := d.requireRepo(); err != nil {
			return PushOutput{}, err
		}
		for _, name := range []struct{ what, v string }{{"bookmark", in.Bookmark}, {"remote", in.Remote}} {
			if name.v != "" {
				if err := config.ValidName(name.v); err != nil {
					return PushOutput{}, userErrorf("%s: %v", name.what, err)
				}
			}
		}
		plan, err := jj.PlanPush(ctx, d.jj, in.Bookmark, in.Remote)
		if err != nil {
			return PushOutput{}, err
		}
		out := PushOutput{Bookmark: plan.Bookmark, Remote: plan.Remote, Stack: []stackEntry{}, Warnings: plan.Warnings, DryRun: in.DryRun}
		for _, c := range plan.Stack {
			out.Stack = append(out.Stack, stackEntry{ChangeID: c.ChangeID, Title: c.Title, Files: paths(c.Files)})
		}
		if plan.Target == nil {
			return out, nil
		}
		out.Target = plan.Target.ChangeID
		if len(plan.Undescribed) > 0 {
			return PushOutput{}, userErrorf("Refusing to push: these changes have no description: %s. Describe each (jj_describe for @, or `jj describe -r ID -m …`), then push again.", strings.Join(plan.Undescribed, ", "))
		}
		if len(plan.Conflicted) > 0 {
			return PushOutput{}, userErrorf("Refusing to push: these changes have conflicts: %s. Resolve them (edit each file to the content it should have; jj records the resolution), then push again.", strings.Join(plan.Conflicted, "; "))
		}
		if leaks := hosts.StackLeaks(hosts.LocalWiring(d.wiringPlace()), plan.Stack); len(leaks) > 0 {
			var where []string
			for _, l := range leaks {
				where = append(where, l.String())
			}
			return PushOutput{}, userErrorf("Refusing to push: planq's local wiring, which belongs to this machine and not to the project, is in the stack: %s. Ask the user; %s. Then push again.", strings.Join(where, "; "), hosts.LeakFix(leaks))
		}
		if in.DryRun {
			return out, nil
		}
		report, err := jj.Push(ctx, d.jj, plan)
		if err != nil {
			return PushOutput{}, err
		}
		out.Pushed, out.Output = true, report
		return out, nil
	})}
}
