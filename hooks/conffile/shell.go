package conffile

import (
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

// IsPlanqHook reports whether the hook command line cmd runs planq's hook
// sub: "<planq…> hook SUB" or "<planq-hook…> SUB" (wherever the binary is,
// with either path separator: a settings file may come from another
// platform), or the same with exe, when set, as the binary whatever its
// name. A trailing "--host H" or "--host=H" must name host; without host
// set, there must be none.
func IsPlanqHook(cmd, sub, host, exe string) bool {
	f := Fields(cmd)
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
// Code, planq's default). IsPlanqHook recognises it.
func HookLine(o Options, sub, host string, tool bool) string {
	argv := []string{o.Exe, "hook", sub}
	if tool && o.HookExe != "" {
		argv = []string{o.HookExe, sub}
	}
	if host != "" {
		argv = append(argv, "--host", host)
	}
	return Line(argv...)
}
