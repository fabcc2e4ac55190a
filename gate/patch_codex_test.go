//go:build !windows

package gate

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// codexPatchCases are patches a model may write, tricky ones first. $OUT
// stands for a directory outside the project. Each is applied by the
// pinned Codex in a fresh project holding a.txt ("hello"), b.txt
// ("*** Update File: b.txt" then "keep") and sub/c.txt ("c").
var codexPatchCases = []struct{ name, patch string }{
	{"add update delete move", "*** Begin Patch\n*** Add File: new.txt\n+n\n*** Update File: a.txt\n*** Move to: moved.txt\n@@\n-hello\n+bye\n*** Delete File: sub/c.txt\n*** End Patch"},
	{"decoy add outside, then a header after a space", "*** Begin Patch\n*** Add File: $OUT/decoy.txt\n+x\n *** Update File: a.txt\n@@\n-hello\n+bye\n*** End Patch"},
	{"decoy add outside, then a header after a tab", "*** Begin Patch\n*** Add File: $OUT/decoy.txt\n+x\n\t*** Update File: a.txt\n@@\n-hello\n+bye\n*** End Patch"},
	{"decoy add outside, then a header after a no-break space", "*** Begin Patch\n*** Add File: $OUT/decoy.txt\n+x\n\u00a0*** Delete File: a.txt\n*** End Patch"},
	{"decoy add outside, then a header after a vertical tab", "*** Begin Patch\n*** Add File: $OUT/decoy.txt\n+x\n\v*** Delete File: a.txt\n*** End Patch"},
	{"decoy add outside, then a header after an ideographic space", "*** Begin Patch\n*** Add File: $OUT/decoy.txt\n+x\n\u3000*** Delete File: a.txt  \n*** End Patch"},
	{"headers with trailing white space", "*** Begin Patch\n*** Add File: new.txt \t\n+n\n*** Delete File: a.txt  \n*** End Patch"},
	{"two spaces after the marker", "*** Begin Patch\n*** Add File:  lead.txt\n+n\n*** End Patch"},
	{"move to, padded", "*** Begin Patch\n*** Update File: a.txt\n*** Move to:  moved.txt\n@@\n-hello\n+bye\n*** End Patch"},
	{"move to after a space is no move", "*** Begin Patch\n*** Update File: a.txt\n *** Move to: moved.txt\n@@\n-hello\n+bye\n*** End Patch"},
	{"CRLF", "*** Begin Patch\r\n*** Add File: new.txt\r\n+n\r\n*** Update File: a.txt\r\n@@\r\n-hello\r\n+bye\r\n*** End Patch\r\n"},
	{"padded markers and blank edges", "\n\n  *** Begin Patch  \n*** Delete File: a.txt\n\t*** End Patch\t\n\n"},
	{"heredoc <<'EOF'", "<<'EOF'\n*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\nEOF"},
	{"heredoc <<EOF", "<<EOF\n*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\nEOF\n"},
	{"heredoc <<\"EOF\"", "<<\"EOF\"\n*** Begin Patch\n*** Add File: new.txt\n+n\n*** End Patch\nEOF"},
	{"first chunk without @@", "*** Begin Patch\n*** Update File: a.txt\n-hello\n+bye\n*** End Patch"},
	{"chunks and end of file", "*** Begin Patch\n*** Update File: b.txt\n@@ *** Update File: b.txt\n-keep\n+kept\n*** End of File\n*** Delete File: sub/c.txt\n*** End Patch"},
	{"a header-like context line is content", "*** Begin Patch\n*** Update File: b.txt\n@@\n *** Update File: b.txt\n-keep\n+kept\n*** End Patch"},
	{"a header-like added line is content", "*** Begin Patch\n*** Add File: new.txt\n+*** Update File: a.txt\n+*** Delete File: b.txt\n*** End Patch"},
	{"absolute path outside", "*** Begin Patch\n*** Add File: $OUT/x.txt\n+x\n*** End Patch"},
	{"dot-dot out of the project", "*** Begin Patch\n*** Add File: ../out/y.txt\n+y\n*** End Patch"},
	{"dot-dot through a directory", "*** Begin Patch\n*** Add File: sub/../z.txt\n+z\n*** End Patch"},
	{"a padded header after a change", "*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+bye\n*** Delete File: b.txt  \n*** End Patch"},
	{"blank lines between hunks", "*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+bye\n*** End of File\n\n   \n*** Add File: new.txt\n+n\n*** End Patch"},
	// What Codex refuses.
	{"an unknown star line after a change", "*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+bye\n*** Copy File: b.txt\n*** End Patch"},
	{"a header without its space after a change", "*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+bye\n*** Add File:x.txt\n+x\n*** End Patch"},
	{"end of file after a blank line", "*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+bye\n\n*** End of File\n*** End Patch"},
	{"an empty add", "*** Begin Patch\n*** Add File: new.txt\n*** End Patch"},
	{"no space after the colon", "*** Begin Patch\n*** Update File:a.txt\n@@\n-hello\n+bye\n*** End Patch"},
	{"text after the end", "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n*** Delete File: b.txt"},
	{"two ends", "*** Begin Patch\n*** Add File: $OUT/decoy.txt\n+x\n*** End Patch\n*** Delete File: a.txt\n*** End Patch"},
	{"a tabbed header inside an update", "*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+bye\n\t*** Delete File: b.txt\n*** End Patch"},
	{"move to later", "*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+bye\n*** Move to: moved.txt\n*** End Patch"},
	{"an update with no change", "*** Begin Patch\n*** Update File: a.txt\n*** End Patch"},
	{"an unknown operation", "*** Begin Patch\n*** Copy File: a.txt\n*** End Patch"},
	{"garbage after an add", "*** Begin Patch\n*** Add File: $OUT/decoy.txt\n+x\ngarbage\n*** Delete File: a.txt\n*** End Patch"},
	{"a second chunk without @@", "*** Begin Patch\n*** Update File: b.txt\n@@\n-keep\n+kept\nx\n*** End Patch"},
	{"another heredoc word", "<<'PATCH'\n*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\nPATCH"},
	{"a shell heredoc", "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\nEOF"},
	{"an empty patch", "*** Begin Patch\n*** End Patch"},
	{"end of file first", "*** Begin Patch\n*** Update File: a.txt\n@@\n*** End of File\n*** End Patch"},
}

// TestPatchPathsAgainstCodex applies each patch with the pinned Codex's own
// apply_patch (codex --codex-run-as-apply-patch, the entry point its shell
// tool uses) in a fresh project, and compares the files it wrote with
// PatchPaths: a patch Codex refuses is an error for PatchPaths, a patch it
// applies names exactly the files it changed, and nothing Codex changed is
// ever missing from PatchPaths.
func TestPatchPathsAgainstCodex(t *testing.T) {
	t.Parallel()
	testenv.SkipShort(t, "the end-to-end test runs the real Codex CLI")
	codex := fakemodel.EnsureCodex(t)
	for _, tt := range codexPatchCases {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			repo, out := filepath.Join(base, "repo"), filepath.Join(base, "out")
			writeTree(t, repo, map[string]string{"a.txt": "hello\n", "b.txt": "*** Update File: b.txt\nkeep\n", "sub/c.txt": "c\n"})
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			patch := strings.ReplaceAll(tt.patch, "$OUT", out)
			before := readTree(t, base)

			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, codex, "--codex-run-as-apply-patch", patch)
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "HOME="+filepath.Join(base, "home"), "CODEX_HOME="+filepath.Join(base, "codex-home"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			runErr := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("codex apply_patch timed out: %s", stderr.String())
			}
			parseRefused := strings.HasPrefix(strings.TrimSpace(stderr.String()), "Invalid patch")
			changed := changedFiles(before, readTree(t, base))

			paths, err := PatchPaths(patch)
			var ours []string
			for _, p := range paths {
				if !filepath.IsAbs(p) {
					p = filepath.Join(repo, p)
				}
				rel, _ := filepath.Rel(base, filepath.Clean(p))
				ours = append(ours, rel)
			}
			slices.Sort(ours)
			ours = slices.Compact(ours)
			t.Logf("codex: err %v, stderr %q, changed %q; PatchPaths: %q, %v", runErr, strings.TrimSpace(stderr.String()), changed, ours, err)

			switch {
			case err != nil && len(changed) > 0:
				t.Errorf("PatchPaths refused a patch Codex wrote %q with: %v", changed, err)
			case err == nil && parseRefused:
				t.Errorf("PatchPaths read %q from a patch Codex's parser refuses (%s)", ours, strings.TrimSpace(stderr.String()))
			case err == nil && runErr == nil && !slices.Equal(ours, changed):
				t.Errorf("Codex applied the patch, changing %q; PatchPaths says %q", changed, ours)
			case err == nil:
				for _, c := range changed {
					if !slices.Contains(ours, c) {
						t.Errorf("Codex changed %s, which PatchPaths does not name (%q)", c, ours)
					}
				}
			}
		})
	}
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree maps every file under dir (relative, home directories left
// out) to its content.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && (rel == "home" || rel == "codex-home") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files[rel] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// changedFiles lists the files added, removed or changed, sorted.
func changedFiles(before, after map[string]string) []string {
	var out []string
	for name, c := range after {
		if b, ok := before[name]; !ok || b != c {
			out = append(out, name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
