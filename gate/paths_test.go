//go:build !windows

package gate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// pathWorld is a project with links in and out of it, in a temp dir: the
// project at base/repo (with notes.txt and sub/), a directory outside at
// base/out, repo/outlink -> out, out/plink -> repo/sub, and a home.
type pathWorld struct {
	base, repo, out, home string
}

func newPathWorld(t *testing.T) pathWorld {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := pathWorld{base: base, repo: filepath.Join(base, "repo"), out: filepath.Join(base, "out"), home: filepath.Join(base, "home")}
	for _, d := range []string{w.repo, w.out, w.home, filepath.Join(w.repo, "sub", "deep"), filepath.Join(w.out, "dir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w.repo, "notes.txt"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		filepath.Join(w.repo, "outlink"): w.out,                                // in the project, to outside
		filepath.Join(w.out, "plink"):    filepath.Join(w.repo, "sub"),         // outside, into the project
		filepath.Join(w.out, "deeplink"): filepath.Join(w.out, "dir"),          // outside, to outside
		filepath.Join(w.repo, "inlink"):  filepath.Join(w.repo, "sub", "deep"), // in the project, to inside
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w pathWorld) getenv(k string) string {
	return map[string]string{"HOME": w.home, "PATH": "/usr/bin:/bin"}[k]
}

// modifiesEverywhere judges a write to p from cwd the three ways a tool can
// make one: an editor tool, an apply_patch patch and a shell redirection.
// One rule judges them all, so the three answers must agree.
func (w pathWorld) modifiesEverywhere(t *testing.T, root, cwd, p string) bool {
	t.Helper()
	write, _ := json.Marshal(map[string]string{"file_path": p, "content": "x"})
	patch, _ := json.Marshal(map[string]string{"input": "*** Begin Patch\n*** Add File: " + p + "\n+x\n*** End Patch"})
	shell, _ := json.Marshal(map[string]string{"command": "echo x > " + shellQuote(p)})
	var got []bool
	for _, c := range []ToolCall{
		{Name: "Write", Tool: testTool("Write"), Input: write},
		{Name: "apply_patch", Tool: Tool{Kind: KindPatch, Field: "input"}, Input: patch},
		{Name: "Bash", Tool: testTool("Bash"), Input: shell},
	} {
		c.Root, c.Cwd, c.Getenv = root, cwd, w.getenv
		v := Classify(c, DefaultPolicy())
		got = append(got, v.Modifies)
		t.Logf("%s %s (cwd %s): modifies=%v, %s", c.Name, p, cwd, v.Modifies, v.Reason)
	}
	if got[0] != got[1] || got[1] != got[2] {
		t.Errorf("%s: the editor, the patch and the shell disagree: %v", p, got)
	}
	return got[0] || got[1] || got[2]
}

// TestPathsJudgedBothWays: a path is outside the project only if it is
// outside both as the kernel reads it (links first, then "..") and as a
// host that cleans ".." as text reads it (Codex's apply_patch, Node's
// path.resolve); for editor tools, patches and shell writes alike.
func TestPathsJudgedBothWays(t *testing.T) {
	t.Parallel()
	w := newPathWorld(t)
	tests := []struct {
		name     string
		cwd      string
		path     string
		modifies bool
	}{
		{"link out, then .. (as text: the project's notes.txt)", w.repo, filepath.Join(w.repo, "outlink") + "/../notes.txt", true},
		{"relative: link out, then ..", w.repo, "outlink/../notes.txt", true},
		{"relative from outside: link in, then .. (the kernel: the project)", w.out, "plink/../x.txt", true},
		{"absolute from outside: link in, then ..", w.repo, filepath.Join(w.out, "plink") + "/../x.txt", true},
		{"link in the project to inside, then ..", w.repo, filepath.Join(w.repo, "inlink") + "/../x.txt", true},
		{"through a link out, no ..", w.repo, filepath.Join(w.repo, "outlink", "x.txt"), false},
		{"through a link out, .. staying out", w.repo, filepath.Join(w.repo, "outlink", "dir") + "/../x.txt", false},
		{"outside, a link to outside, then ..", w.repo, filepath.Join(w.out, "deeplink") + "/../x.txt", false},
		{"outside, plain", w.repo, filepath.Join(w.out, "x.txt"), false},
		{"outside, relative, plain", w.out, "x.txt", false},
		{"in the project, plain", w.repo, filepath.Join(w.repo, "x.txt"), true},
		{"in the project, .. out as text and by the kernel", w.repo, filepath.Join(w.repo, "sub") + "/../../out/x.txt", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := w.modifiesEverywhere(t, w.repo, tt.cwd, tt.path); got != tt.modifies {
				t.Errorf("%s from %s: modifies=%v, want %v", tt.path, tt.cwd, got, tt.modifies)
			}
		})
	}
}
