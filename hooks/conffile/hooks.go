package conffile

import (
	"fmt"
	"iter"
)

// HookSpec is planq's hook for one event in a hooks object of Claude Code's
// shape ({"Event": [{"matcher": m, "hooks": [entry, …]}, …]}), which Gemini
// CLI's settings share.
type HookSpec struct {
	Event   string
	Matcher string  // the group's matcher; "" for a lifecycle event
	Entry   *Object // planq's entry as it should be
	// IsPlanq reports whether an entry already there is planq's hook for
	// the event (another binary path or timeout included).
	IsPlanq func(entry *Object) bool
	// Own keeps planq's entry alone in a group of its own, as planq wires
	// Codex CLI's hooks.json: unless the event holds exactly that group
	// once, every planq entry is taken out and the group appended last.
	Own bool
}

// MergeHook makes hooksObj[spec.Event] hold exactly one planq entry (none
// with remove), leaving every other hook where it is; an outdated planq
// entry is updated in place, in a group whose matcher suits it (with
// spec.Own, in a group of its own, appended last).
func MergeHook(hooksObj *Object, spec HookSpec, remove bool, path string) error {
	v, exists := hooksObj.Get(spec.Event)
	groups, ok := v.([]any)
	if exists && v != nil && !ok {
		return fmt.Errorf("%s: hooks.%s is not a list; fix the file by hand", path, spec.Event)
	}
	if spec.Own && !remove && ownGroupIn(groups, spec) {
		return nil
	}
	found := false
	var out []any
	for _, g := range groups {
		group, ok := g.(*Object)
		if !ok {
			out = append(out, g)
			continue
		}
		hv, _ := group.Get("hooks")
		list, ok := hv.([]any)
		if !ok {
			out = append(out, g)
			continue
		}
		var kept []any
		for _, item := range list {
			entry, ok := item.(*Object)
			if !ok || !spec.IsPlanq(entry) {
				kept = append(kept, item)
				continue
			}
			if !remove && !found && !spec.Own && matcherSuits(group, spec.Matcher) {
				found = true
				kept = append(kept, spec.Entry) // in place, updated if outdated
			}
		}
		if len(kept) == 0 {
			continue // the group held only planq's hook
		}
		group.Set("hooks", kept)
		out = append(out, group)
	}
	if !remove && !found {
		out = append(out, ownGroup(spec))
	}
	if len(out) == 0 {
		hooksObj.Del(spec.Event)
		return nil
	}
	hooksObj.Set(spec.Event, out)
	return nil
}

// ownGroup is a group holding planq's entry alone, under its matcher.
func ownGroup(spec HookSpec) *Object {
	g := NewObject()
	if spec.Matcher != "" {
		g.Set("matcher", spec.Matcher)
	}
	g.Set("hooks", []any{spec.Entry})
	return g
}

// ownGroupIn reports whether groups hold planq's entry exactly once, as
// the whole of a group that is exactly ownGroup(spec).
func ownGroupIn(groups []any, spec HookSpec) bool {
	found, exact := 0, false
	for group, entry := range entries(groups) {
		if spec.IsPlanq(entry) {
			found++
			exact = Same(group, ownGroup(spec))
		}
	}
	return found == 1 && exact
}

// Entries yields each entry of the groups of hooksObj[event] (Claude Code's
// shape: [{"matcher": m, "hooks": [entry, …]}, …]) with its group, passing
// over what has another shape.
func Entries(hooksObj *Object, event string) iter.Seq2[*Object, *Object] {
	if hooksObj == nil {
		return entries(nil)
	}
	v, _ := hooksObj.Get(event)
	groups, _ := v.([]any)
	return entries(groups)
}

// entries yields each entry of groups with its group.
func entries(groups []any) iter.Seq2[*Object, *Object] {
	return func(yield func(group, entry *Object) bool) {
		for _, g := range groups {
			group, ok := g.(*Object)
			if !ok {
				continue
			}
			hv, _ := group.Get("hooks")
			list, _ := hv.([]any)
			for _, item := range list {
				if entry, ok := item.(*Object); ok && !yield(group, entry) {
					return
				}
			}
		}
	}
}

// matcherSuits reports whether a group's matcher lets planq's hook see what
// it must: exactly planq's tool matcher, or none for a lifecycle event.
func matcherSuits(group *Object, matcher string) bool {
	m, _ := group.Get("matcher")
	s, _ := m.(string)
	if matcher == "" {
		return s == "" || s == "*"
	}
	return s == matcher
}

// FindHook returns planq's entry for spec.Event in a group whose matcher
// suits it (spec.Entry is not read).
func FindHook(hooksObj *Object, spec HookSpec) (*Object, bool) {
	for group, entry := range Entries(hooksObj, spec.Event) {
		if matcherSuits(group, spec.Matcher) && spec.IsPlanq(entry) {
			return entry, true
		}
	}
	return nil, false
}

// Hook is one hook planq wires into a host: the host's event, planq's hook
// subcommand for it, the tool matcher (empty: none), the timeout in the
// host's unit, and whether it is a tool hook, which runs on every tool call
// and is served by the planq-hook binary when that is installed (HookLine).
type Hook struct {
	Event, Subcommand, Matcher string
	Timeout                    int
	Tool                       bool
}

// Entry is planq's entry for h in Claude Code's shape, which Codex CLI's
// hooks.json shares: {"type": "command", "command": HookLine's for host,
// "timeout": h.Timeout}.
func (h Hook) Entry(o Options, host string) *Object {
	e := NewObject()
	e.Set("type", "command")
	e.Set("command", HookLine(o, h.Subcommand, host, h.Tool))
	e.Set("timeout", Int(h.Timeout))
	return e
}

// Spec is h's HookSpec with entry as planq's: an entry already there is
// planq's when its command runs h's subcommand (IsPlanqHook, for host and
// exe).
func (h Hook) Spec(entry *Object, host, exe string) HookSpec {
	return HookSpec{Event: h.Event, Matcher: h.Matcher, Entry: entry, IsPlanq: func(e *Object) bool {
		return IsPlanqHook(EntryCommand(e), h.Subcommand, host, exe)
	}}
}

// CommandBinary is the binary a hook's command line runs (its first
// word), or "".
func CommandBinary(cmd string) string {
	if f := HookArgv(cmd); len(f) > 0 {
		return f[0]
	}
	return ""
}

// EntryCommand is a hook entry's "command", or "" (for a nil entry too).
func EntryCommand(entry *Object) string {
	if entry == nil {
		return ""
	}
	v, _ := entry.Get("command")
	s, _ := v.(string)
	return s
}
