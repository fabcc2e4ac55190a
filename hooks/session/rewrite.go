package session

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/internal/text"
)

// Command is the command of a shell call: the string its input holds in
// the tool's field ("" when it holds none).
func (c *Call) Command() string { return stringInput(c.Input, c.Tool.Field) }

// RewrittenInput is the input of ev's shell call with its command replaced
// by command (Reply.Command), every other argument kept: what a host that
// replaces a call's arguments, rather than merging them, must be handed.
func RewrittenInput(ev Event, command string) (json.RawMessage, error) {
	if ev.Call == nil || ev.Call.Tool.Field == "" || ev.Call.Command() == "" {
		return nil, errors.New("the call has no command to run in the sandbox")
	}
	return ReplaceInput(ev.Call.Input, ev.Call.Tool.Field, command)
}

// RewriteFailed is the answer to ev when the host's answer cannot carry
// the rewritten command: the call must not run as it is, so it is denied.
func RewriteFailed(ev Event, err error) Reply {
	return Reply{Deny: true, Reason: "planq gate: blocked this call: until the change is declared it runs in planq's sandbox, and its input could not be rewritten (" +
		text.OneLine(err.Error()) + "); call " + ev.Host.Tool("jj_init") + " with a one-line description first."}
}

// RuleJudges reports whether a host's permission rules about progs (the
// programs their patterns start with, by base name) would judge a shell
// command differently once it is rewritten to run in planq's sandbox: when
// a word of command (split at blanks, quotes and shell operators; its base
// name too) is one of progs, or when progs holds the sandbox's own entry
// point (planq-sandbox, planq-hook, planq), which every rewritten command
// starts. It
// over-approximates: hosts match rules on a command's first words only.
func RuleJudges(command string, progs map[string]bool) bool {
	if len(progs) == 0 {
		return false
	}
	if progs[sandbox.LeanBinary] || progs["planq-hook"] || progs["planq"] {
		return true
	}
	for _, w := range CommandWords(command) {
		if progs[w] || progs[filepath.Base(w)] {
			return true
		}
	}
	return false
}

// CommandWords splits a shell command into the words a host's matcher may
// look at, over-approximating: at blanks, quotes and shell operators, and
// at = (so --file=/etc/x gives /etc/x), never at / or . (paths stay whole).
func CommandWords(command string) []string {
	return strings.FieldsFunc(command, func(r rune) bool { return strings.ContainsRune(" \t\n\r;&|()<>`$'\"{}=\\!", r) })
}
