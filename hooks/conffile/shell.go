package conffile

import (
	"bytes"
	"strings"

	"mvdan.cc/sh/v3/shell"
	"mvdan.cc/sh/v3/syntax"
)

// Quote quotes s for a POSIX shell when it needs quoting, with mvdan.cc/sh's
// syntax.Quote: hosts run hook commands with sh (Git Bash on Windows, so
// C:\ paths with spaces work too).
func Quote(s string) string {
	q, err := syntax.Quote(s, syntax.LangPOSIX)
	if err != nil {
		// Control characters: POSIX has no escapes for them, but single
		// quotes keep every byte but the quote itself.
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return q
}

// Line renders argv as a command line a shell runs as those words.
func Line(argv ...string) string {
	out := make([]string, len(argv))
	for i, w := range argv {
		out[i] = Quote(w)
	}
	return strings.Join(out, " ")
}

// Fields splits a command line into words the way a POSIX shell would
// (quotes and escapes removed, with mvdan.cc/sh), without running one:
// $NAME is kept as written, not expanded. It returns nil for a line that is
// not valid shell syntax.
func Fields(s string) []string {
	f, err := shell.Fields(s, func(name string) string { return "$" + name })
	if err != nil {
		return nil
	}
	return f
}

// GateHook is planq's pre-tool-use hook, the gate: the one hook whose
// failure must hold the tool call back.
const GateHook = "pre-tool-use"

// failClosed follows the gate's command line: a host runs a tool call
// whose hook command fails in most ways (Claude Code and Codex CLI let it
// through on a command not found, 127; Gemini CLI on a crash), but blocks
// it on exit status 2, with what the command wrote to stderr as the
// reason. So any failure of planq's gate command (its binary missing, not
// executable, crashing) becomes a denial that says so; the gate's own
// answers (exit 0, or 2) pass as they are.
const failClosed = ` || { echo "planq: the gate's hook failed (exit $?), so this call is held back; planq doctor says why" >&2; exit 2; }`

// HookArgv returns the words of the command a hook command line runs:
// the line itself, or the command before planq's fail-closed tail
// ("CMD || { …; exit 2; }"); nil for a line that is not valid shell
// syntax or runs something else.
func HookArgv(line string) []string {
	f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	st := f.Stmts[0]
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && b.Op == syntax.OrStmt && !st.Negated && !st.Background {
		st = b.X
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || st.Negated || st.Background || len(st.Redirs) > 0 {
		return nil
	}
	var buf bytes.Buffer
	if err := syntax.NewPrinter().Print(&buf, call); err != nil {
		return nil
	}
	return Fields(buf.String())
}

// FailsClosed reports whether a hook command line ends with planq's
// fail-closed tail.
func FailsClosed(line string) bool { return strings.HasSuffix(line, failClosed) }

// IsPlanqHook reports whether the hook command line cmd runs planq's hook
// sub: "<planq…> hook SUB" or "<planq-hook…> SUB" (wherever the binary is,
// with either path separator: a settings file may come from another
// platform), or the same with exe, when set, as the binary whatever its
// name. A trailing "--host H" or "--host=H" must name host; without host
// set, there must be none.
func IsPlanqHook(cmd, sub, host, exe string) bool {
	f := HookArgv(cmd)
	if len(f) == 0 {
		return false
	}
	base := f[0][strings.LastIndexAny(f[0], `/\`)+1:]
	args := f[1:]
	named := ""
	if n := len(args); n >= 2 && args[n-2] == "--host" {
		named, args = args[n-1], args[:n-2]
	} else if n >= 1 && strings.HasPrefix(args[n-1], "--host=") {
		named, args = strings.TrimPrefix(args[n-1], "--host="), args[:n-1]
	}
	if named != "" && named != host {
		return false
	}
	switch {
	case strings.HasPrefix(base, HookBinary):
		return len(args) == 1 && args[0] == sub
	case strings.HasPrefix(base, "planq"), exe != "" && (f[0] == exe || base == exe[strings.LastIndexAny(exe, `/\`)+1:]):
		return len(args) == 2 && args[0] == "hook" && args[1] == sub
	}
	return false
}

// HookLine is the command line a host runs for planq's hook sub: the
// planq-hook binary (o.HookExe) for a tool hook when it is installed, else
// `planq hook`; with --host host when host is set (every host but Claude
// Code, planq's default). The gate's line fails closed (failClosed).
// IsPlanqHook recognises it.
func HookLine(o Options, sub, host string, tool bool) string {
	argv := []string{o.Exe, "hook", sub}
	if tool && o.HookExe != "" {
		argv = []string{o.HookExe, sub}
	}
	if host != "" {
		argv = append(argv, "--host", host)
	}
	if sub == GateHook {
		return Line(argv...) + failClosed
	}
	return Line(argv...)
}
