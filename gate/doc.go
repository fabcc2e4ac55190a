// Package gate decides whether an agent's tool call modifies files, and
// whether the gate that holds such calls back until the agent has declared
// its jj change is locked.
//
// # Classification
//
// Classify judges a tool call: Claude Code's built-in tools by name, planq's
// own MCP tools as always allowed, other MCP tools by configurable name globs,
// and Bash commands with AnalyzeBash.
//
// AnalyzeBash parses the command with a real shell parser (mvdan.cc/sh) and
// judges every simple command in it — in pipelines, lists, subshells, groups,
// if/for/while/case bodies, functions, command and process substitutions, and
// the code given to bash -c, sh -c, eval, trap, watch and a shell reading a
// here-document — plus every redirection on its own. Wrappers (env, sudo,
// nice, timeout, nohup, time, command, exec, xargs, find -exec, npx, …) are
// judged by the command they run. What planq knows about commands is held in
// tables of rules (commands.go, vcs.go, toolchains.go): a command name maps
// to whether it reads, which flags, arguments or subcommands make it write,
// and, for a few, a check that reads the program it is given (sed scripts,
// awk programs). A command modifies when any part of it does; the verdict
// names the first part that does.
//
// Unknown commands follow the policy's unknown setting (strict by default:
// unknown counts as modifying). Whatever the policy, a command whose name is
// computed at run time ($EDITOR file), a command that does not parse, one
// nested more than six levels deep, or one longer than 256 KiB counts as
// modifying: the gate never lets through what it could not read.
//
// # Known limits
//
// Read-only commands the gate blocks (listed with their reasons in the table
// test, bash_test.go):
//   - code given to an interpreter (python -c, node -e, perl -ne, ruby -e) and
//     scripts run by one (python x.py, bash x.sh, source x) may do anything,
//     so they count as modifying even when they only print;
//   - go build ./... (it writes nothing for several packages, but a binary for
//     one main package, and planq cannot tell which without loading them);
//   - package scripts other than test and check scripts (npm run lint may fix
//     files);
//   - commands planq does not know (ssh, open, …) under the strict policy.
//
// Modifying commands the gate allows, by design:
//   - test and check runners (go test, npm test, pytest, cargo test) run the
//     project's own test code, which could write anything; investigating before
//     declaring is the point, and they write only caches in practice;
//   - jj new, jj describe, jj commit and jj git init: declaring the change is
//     what the gate asks for, and they touch no file;
//   - git fetch and jj git fetch update remote-tracking refs only;
//   - editor tools writing outside the repository (Claude Code's plan files).
//
// # Gate state
//
// State reports whether the gate is unlocked: the directory is a jj repo and
// its working-copy change @ has a description. It is cached in .jj/ keyed on
// jj's operation heads, so a hook process starts jj only after an operation.
package gate
