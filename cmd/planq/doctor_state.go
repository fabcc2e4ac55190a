package main

import (
	"context"
	"fmt"

	"github.com/planq-dev/planq/staterepo"
)

// stateChecks is what doctor says about the project's state repo: one
// check per damage the integrity check finds (with its fix), else one line
// saying it is sound; nothing before the repo exists.
func stateChecks(ctx context.Context, a *app, root string) []check {
	s, err := staterepo.Open(staterepo.Options{Dir: root, Getenv: a.Getenv, Warn: func(string) {}})
	if err != nil {
		return []check{{Name: "state", Detail: "cannot open the state repo: " + err.Error()}}
	}
	if !s.Initialized() {
		return nil
	}
	h, err := s.Check(ctx, staterepo.CheckBudget)
	if err != nil {
		return []check{{Name: "state", Detail: err.Error()}}
	}
	var out []check
	for _, d := range h.Damage {
		out = append(out, check{Name: "state", Detail: "damaged: " + d.What, Fix: d.Fix})
	}
	if len(out) > 0 {
		return out
	}
	detail := fmt.Sprintf("state repo %s sound (%d objects checked)", s.Bare, h.Objects)
	if !h.Complete {
		detail = fmt.Sprintf("state repo %s: no damage in the %d objects checked in %.0fs (newest history first; `git -C %s fsck` checks the rest)", s.Bare, h.Objects, h.Seconds, s.Bare)
	}
	return []check{{Name: "state", OK: true, Detail: detail}}
}
