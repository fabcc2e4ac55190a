package gate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// The apply_patch format, as the pinned Codex (0.169, codex-rs/apply-patch
// parser.rs) reads it; OpenCode's apply_patch takes the same format.
const (
	patchBegin     = "*** Begin Patch"
	patchEnd       = "*** End Patch"
	patchAdd       = "*** Add File: "
	patchDelete    = "*** Delete File: "
	patchUpdate    = "*** Update File: "
	patchMove      = "*** Move to: "
	patchEOF       = "*** End of File"
	patchContext   = "@@ "
	patchContextNo = "@@"
)

// PatchPaths returns the files an apply_patch patch adds, deletes, updates
// or moves to, in order, exactly as Codex's parser reads them (relative
// paths are relative to the tool's working directory). What Codex rejects
// is an error: it writes nothing, and planq cannot tell what a host that
// reads it more loosely would write.
//
// Codex's reading, which this follows line by line:
//   - the text is trimmed of white space and split into lines at \n (a \r
//     before it is dropped); its first and last lines, trimmed, must be
//     "*** Begin Patch" and "*** End Patch", or the whole is a heredoc
//     (first line exactly <<EOF, <<'EOF' or <<"EOF", last line ending in
//     EOF, four lines at least) around such a patch;
//   - a hunk's header line is trimmed before it is read, so " *** Update
//     File: x" after an Add File hunk updates x; the path is the rest of the
//     trimmed line after "*** Add File: " (or Delete, Update);
//   - an Add File hunk takes every following line that starts with "+";
//   - an Update File hunk takes a "*** Move to: " line right after its
//     header (untrimmed), then chunks: blank lines are skipped, a line
//     starting with "*" ends the hunk, a chunk starts with "@@" or "@@ ..."
//     (the first may start without one) and takes lines starting with " ",
//     "+" or "-", empty lines, and "*** End of File" last; a hunk with no
//     chunk is an error.
func PatchPaths(text string) ([]string, error) {
	hunks, err := parsePatch(text)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, h := range hunks {
		paths = append(paths, h.path)
		if h.move != "" {
			paths = append(paths, h.move)
		}
	}
	if len(paths) == 0 {
		return nil, errors.New("it names no file")
	}
	return paths, nil
}

// patchHunk is one file operation of a patch.
type patchHunk struct {
	op   string // add, delete, update
	path string
	move string // update: the file it moves to
}

func parsePatch(text string) ([]patchHunk, error) {
	lines := patchLines(text)
	body, err := patchBody(lines)
	if err != nil {
		return nil, err
	}
	var hunks []patchHunk
	for n := 2; len(body) > 0; {
		h, used, err := parseHunk(body, n)
		if err != nil {
			return nil, err
		}
		hunks = append(hunks, h)
		body, n = body[used:], n+used
	}
	return hunks, nil
}

// patchLines splits text the way Rust's str::trim and str::lines do.
func patchLines(text string) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// patchBody returns the lines between the patch's begin and end markers.
func patchBody(lines []string) ([]string, error) {
	if body, ok := markedBody(lines); ok {
		return body, nil
	}
	// A heredoc around the patch, as a model may write it for a tool that
	// runs apply_patch without a shell.
	if n := len(lines); n >= 4 && slices.Contains([]string{"<<EOF", "<<'EOF'", `<<"EOF"`}, lines[0]) && strings.HasSuffix(lines[n-1], "EOF") {
		if body, ok := markedBody(lines[1 : n-1]); ok {
			return body, nil
		}
	}
	return nil, errors.New("it is not one patch from \"*** Begin Patch\" to \"*** End Patch\"")
}

func markedBody(lines []string) ([]string, bool) {
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != patchBegin || strings.TrimSpace(lines[len(lines)-1]) != patchEnd {
		return nil, false
	}
	return lines[1 : len(lines)-1], true
}

// parseHunk reads the hunk at the start of lines (line n of the patch) and
// returns it with the number of lines it takes.
func parseHunk(lines []string, n int) (patchHunk, int, error) {
	first := strings.TrimSpace(lines[0])
	if p, ok := strings.CutPrefix(first, patchAdd); ok {
		used := 1
		for used < len(lines) && strings.HasPrefix(lines[used], "+") {
			used++
		}
		return patchHunk{op: "add", path: p}, used, nil
	}
	if p, ok := strings.CutPrefix(first, patchDelete); ok {
		return patchHunk{op: "delete", path: p}, 1, nil
	}
	p, ok := strings.CutPrefix(first, patchUpdate)
	if !ok {
		return patchHunk{}, 0, fmt.Errorf("line %d, %q, is no patch operation (Add File, Delete File, Update File)", n, lines[0])
	}
	h := patchHunk{op: "update", path: p}
	used := 1
	if len(lines) > 1 {
		if m, ok := strings.CutPrefix(lines[1], patchMove); ok {
			h.move = m
			used++
		}
	}
	chunks := 0
	for used < len(lines) {
		l := lines[used]
		if strings.TrimSpace(l) == "" {
			used++
			continue
		}
		if strings.HasPrefix(l, "*") {
			break
		}
		took, err := chunkLines(lines[used:], n+used, chunks == 0)
		if err != nil {
			return patchHunk{}, 0, err
		}
		chunks++
		used += took
	}
	if chunks == 0 {
		return patchHunk{}, 0, fmt.Errorf("line %d: the Update File hunk for %q has no change", n, p)
	}
	return h, used, nil
}

// chunkLines returns how many lines the update chunk at the start of lines
// takes; first says it is a hunk's first chunk, which may start without a
// "@@" line.
func chunkLines(lines []string, n int, first bool) (int, error) {
	start := 0
	switch {
	case lines[0] == patchContextNo, strings.HasPrefix(lines[0], patchContext):
		start = 1
	case !first:
		return 0, fmt.Errorf("line %d, %q: a change must start with @@", n, lines[0])
	}
	if start >= len(lines) {
		return 0, fmt.Errorf("line %d: a change has no lines", n+1)
	}
	took := 0
	for _, l := range lines[start:] {
		if l == patchEOF {
			if took == 0 {
				return 0, fmt.Errorf("line %d: a change has no lines", n+1)
			}
			took++
			break
		}
		if r, _ := utf8.DecodeRuneInString(l); l != "" && r != ' ' && r != '+' && r != '-' {
			if took == 0 {
				return 0, fmt.Errorf("line %d, %q: a change's lines start with a space, + or -", n+1, l)
			}
			break // the next hunk
		}
		took++
	}
	return took + start, nil
}

// patchTargets are the files the gate judges for a patch: the files
// PatchPaths reads, and each also with the white space around it trimmed,
// as a host that trims file names (OpenCode) would write it.
func patchTargets(text string) ([]string, error) {
	paths, err := PatchPaths(text)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(paths)
	for _, p := range paths {
		if t := strings.TrimSpace(p); t != p && t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// patchRules: apply_patch and applypatch, as commands. Codex's shell tool
// applies a command that is only `apply_patch <<'EOF' … EOF` (or `cd DIR &&`
// before it) itself, in process, and puts an apply_patch program on the
// shell's PATH for the rest: either way the files the patch names are
// written, so the command is judged by them, as an apply_patch tool call
// is.
func patchRules(t table) {
	t["apply_patch"] = &rule{check: applyPatchCheck}
	t["applypatch"] = t["apply_patch"]
}

// applyPatchCheck reads the patch from the one argument, else from a
// here-document on standard input. Every finding is sure: Codex applies an apply_patch command itself,
// outside any shell, so the OS sandbox would not hold it.
func applyPatchCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	var text arg
	switch len(args) {
	case 0:
		body, ok := stdinText(c.redirs)
		if !ok {
			return outcome{mod: true, sure: true, reason: name + " reads a patch from standard input, which planq cannot read"}
		}
		text = body
	case 1:
		text = args[0]
	default:
		return outcome{mod: true, sure: true, reason: name + " with more than one argument is not a patch planq reads"}
	}
	if !text.static {
		return outcome{mod: true, sure: true, reason: name + " applies a patch computed at run time"}
	}
	paths, err := patchTargets(text.val)
	if err != nil {
		return outcome{mod: true, sure: true, reason: "planq cannot read the " + name + " patch (" + err.Error() + "), so it cannot tell which files it writes"}
	}
	for _, p := range paths {
		if c.a.pathKind(staticArg(p)) != pathOutside {
			return outcome{mod: true, sure: true, reason: name + " writes " + p}
		}
	}
	return outcome{}
}

// classifyPatch judges an apply_patch call by the files its patch touches:
// it modifies unless every one of them is provably outside the project.
func classifyPatch(call ToolCall) Verdict {
	name, field := call.Name, call.Tool.Field
	fields, err := ExactFields(call.Input, field)
	if err != nil {
		return Verdict{Modifies: true, Part: name, Reason: "the " + name + " input is ambiguous or malformed (" + err.Error() + "), so planq cannot tell which files it writes"}
	}
	text, ok := stringField(fields, field)
	if !ok {
		return Verdict{Modifies: true, Part: name, Reason: "the " + name + " input has no patch text, so planq cannot tell which files it writes"}
	}
	paths, err := patchTargets(text)
	if err != nil {
		return Verdict{Modifies: true, Part: name, Reason: "planq cannot read the " + name + " patch (" + err.Error() + "), so it cannot tell which files it writes"}
	}
	part := name + " " + strings.Join(paths, ", ")
	for _, p := range paths {
		if editorTarget(call.where(), p) != pathOutside {
			return Verdict{Modifies: true, Part: part, Reason: name + " writes " + p}
		}
	}
	return Verdict{Part: part, Reason: name + " writes only outside the project"}
}
