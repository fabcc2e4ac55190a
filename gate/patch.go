package gate

import (
	"errors"
	"fmt"
	"strings"
)

// Patch file operations, as apply_patch (Codex, OpenCode) writes them.
const (
	patchBegin  = "*** Begin Patch"
	patchEnd    = "*** End Patch"
	patchAdd    = "*** Add File: "
	patchUpdate = "*** Update File: "
	patchDelete = "*** Delete File: "
	patchMove   = "*** Move to: "
)

// PatchPaths returns the files an apply_patch patch adds, updates, deletes
// or moves to, in order, as written (relative paths are relative to the
// tool's working directory). A text that is not one whole patch, from
// "*** Begin Patch" to "*** End Patch", is an error: what it would touch
// cannot be told.
func PatchPaths(text string) ([]string, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != patchBegin || strings.TrimSpace(lines[len(lines)-1]) != patchEnd {
		return nil, errors.New("it is not one patch from \"*** Begin Patch\" to \"*** End Patch\"")
	}
	var paths []string
	for i, l := range lines[1 : len(lines)-1] {
		if !strings.HasPrefix(l, "***") {
			continue
		}
		var p string
		switch {
		case strings.HasPrefix(l, patchAdd):
			p = l[len(patchAdd):]
		case strings.HasPrefix(l, patchUpdate):
			p = l[len(patchUpdate):]
		case strings.HasPrefix(l, patchDelete):
			p = l[len(patchDelete):]
		case strings.HasPrefix(l, patchMove):
			p = l[len(patchMove):]
		case strings.TrimSpace(l) == "*** End of File":
			continue
		default:
			return nil, fmt.Errorf("line %d, %q, is no patch operation planq knows", i+2, l)
		}
		if p = strings.TrimSpace(p); p == "" {
			return nil, fmt.Errorf("line %d names no file", i+2)
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		return nil, errors.New("it names no file")
	}
	return paths, nil
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
	paths, err := PatchPaths(text)
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
