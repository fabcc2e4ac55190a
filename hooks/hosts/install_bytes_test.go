package hosts

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/claude"
	"github.com/planq-dev/planq/hooks/codex"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/conffile/unified"
	"github.com/planq-dev/planq/hooks/gemini"
)

var update = flag.Bool("update", false, "rewrite testdata/install/*.txt from what the adapters write now")

// Every adapter's bytes in the host's files, pinned: a fresh install, a
// second install (no change), an install over the user's own files that
// hold planq's wiring outdated, doubled, misplaced or current, one of a
// planq that moved, and the uninstall after them. The golden files are the byte-for-byte contract a
// refactoring of the adapters keeps.
func TestInstallBytes(t *testing.T) {
	t.Parallel()
	const exe, hookExe = "/opt/planq/bin/planq", "/opt/planq/bin/planq-hook"
	for _, a := range All() {
		name := a.Host().Name
		for _, scope := range []string{conffile.ScopeProject, conffile.ScopeUser} {
			t.Run(name+"/"+scope, func(t *testing.T) {
				ctx := context.Background()
				project, home := t.TempDir(), t.TempDir()
				o := conffile.Options{Scope: scope, ProjectDir: project, Home: home, Exe: exe, HookExe: hookExe,
					Getenv: func(k string) string { return map[string]string{"PLANQ_HOME": "/var/lib/planq"}[k] }}
				var out bytes.Buffer
				step := func(label string, o conffile.Options) conffile.Result {
					t.Helper()
					res, err := a.Install(ctx, o)
					if err != nil {
						t.Fatalf("%s: %v", label, err)
					}
					fmt.Fprintf(&out, "######## %s\n", label)
					dumpTree(t, &out, map[string]string{"$PROJECT": project, "$HOME": home})
					return res
				}
				res := step("install", o)
				if again, err := a.Install(ctx, o); err != nil || again.Changed() {
					t.Fatalf("a second install changed %d files (%v)", len(again.Edits), err)
				}
				un := o
				un.Uninstall = true
				step("uninstall", un)

				// The user's files, with planq's wiring in every state.
				for _, e := range res.Edits {
					if seed, ok := seeds[name][filepath.Base(e.Path)]; ok {
						if err := os.MkdirAll(filepath.Dir(e.Path), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(e.Path, []byte(seedReplacer.Replace(seed)), 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
				fmt.Fprintf(&out, "######## the user's files\n")
				dumpTree(t, &out, map[string]string{"$PROJECT": project, "$HOME": home})
				step("install over the user's files", o)
				if again, err := a.Install(ctx, o); err != nil || again.Changed() {
					t.Fatalf("a second install over the user's files changed %d files (%v)", len(again.Edits), err)
				}
				moved := o
				moved.Exe, moved.HookExe = "/usr/local/bin/planq", ""
				step("install of a moved planq", moved)
				step("uninstall from the user's files", un)

				compareGolden(t, filepath.Join("testdata", "install", name+"-"+scope+".txt"), out.Bytes())
			})
		}
	}
}

// compareGolden fails the test unless got is the golden file's content
// (with -update, it writes the file instead).
func compareGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("what the adapters write differs from %s:\n%s", golden, unified.Diff("/"+golden, want, got))
	}
}

// dumpTree writes every file under the roots (named by their labels), in
// path order, with its mode and content.
func dumpTree(t *testing.T, w *bytes.Buffer, roots map[string]string) {
	t.Helper()
	labels := make([]string, 0, len(roots))
	for l := range roots {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	for _, label := range labels {
		root := roots[label]
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			text := string(data)
			for l, r := range roots {
				text = strings.ReplaceAll(text, r, l)
			}
			fmt.Fprintf(w, "=== %s/%s (%04o)\n%s", label, filepath.ToSlash(rel), info.Mode().Perm(), text)
			if !strings.HasSuffix(text, "\n") {
				w.WriteString("\n\\ no newline at end of file\n")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// seedReplacer fills the seeds' matchers in.
var seedReplacer = strings.NewReplacer(
	"@CLAUDE_GATED@", jsonString(claude.GatedTools),
	"@CLAUDE_AFTER@", jsonString(claude.AfterTools),
	"@GEMINI_GATED@", jsonString(gemini.GatedTools),
	"@CODEX_AFTER@", jsonString(codex.Hooks[2].Matcher),
)

// seeds are the user's files by host and base name: their own settings
// and hooks, and planq's wiring current (kept as it is), outdated (another
// binary, another timeout), doubled, and under a matcher that does or does
// not suit it.
var seeds = map[string]map[string]string{
	"claude": {
		".mcp.json":    `{"mcpServers": {"github": {"command": "gh-mcp"}, "planq": {"type": "stdio", "command": "/old/planq", "args": ["mcp", "serve"]}}}` + "\n",
		".claude.json": "{\n\t\"numStartups\": 3,\n\t\"mcpServers\": {\"github\": {\"command\": \"gh-mcp\"}}\n}\n",
		"settings.json": `{
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": @CLAUDE_GATED@, "hooks": [{"type": "command", "command": "/old/planq hook pre-tool-use", "timeout": 10}]},
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-audit", "timeout": 5}]}
    ],
    "PostToolUse": [
      {"matcher": "Write", "hooks": [{"type": "command", "command": "/old/planq hook post-tool-use", "timeout": 10}]},
      {"matcher": @CLAUDE_AFTER@, "hooks": [{"type": "command", "command": "my-log"}, {"type": "command", "command": "/old/planq hook post-tool-use", "timeout": 10}]}
    ],
    "SessionStart": [{"matcher": "*", "hooks": [{"type": "command", "command": "/old/planq hook session-start", "timeout": 30}]}],
    "Stop": [
      {"hooks": [{"type": "command", "command": "/opt/planq/bin/planq hook stop", "timeout": 30}]},
      {"hooks": [{"type": "command", "command": "/old/planq hook stop", "timeout": 30}]}
    ],
    "PreCompact": [{"hooks": [{"type": "command", "command": "/opt/planq/bin/planq hook pre-compact", "timeout": 30}]}]
  }
}
`,
	},
	"codex": {
		"config.toml": `# my codex settings
model = "gpt-5.5" # the default

[mcp_servers.github]
command = "gh-mcp"
`,
		"hooks.json": `{
    "hooks": {
        "PreToolUse": [
            {"hooks": [{"type": "command", "command": "/old/planq hook pre-tool-use --host codex", "timeout": 10}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-audit", "timeout": 5}]}
        ],
        "PostToolUse": [
            {"matcher": @CODEX_AFTER@, "hooks": [{"type": "command", "command": "my-log"}, {"type": "command", "command": "/old/planq hook post-tool-use --host codex", "timeout": 10}]}
        ],
        "SessionStart": [{"matcher": "*", "hooks": [{"type": "command", "command": "/opt/planq/bin/planq hook session-start --host codex", "timeout": 30}]}],
        "Stop": [
            {"hooks": [{"type": "command", "command": "/opt/planq/bin/planq hook stop --host codex", "timeout": 30}]},
            {"hooks": [{"type": "command", "command": "/old/planq hook stop --host codex", "timeout": 30}]}
        ],
        "PreCompact": [{"hooks": [{"type": "command", "command": "/opt/planq/bin/planq hook pre-compact --host codex", "timeout": 30}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "my-prompt-log"}]}]
    },
    "mine": true
}
`,
	},
	"gemini": {
		"settings.json": `{
  "general": {"vimMode": true},
  "mcpServers": {"github": {"command": "gh-mcp"}},
  "hooks": {
    "BeforeTool": [
      {"matcher": @GEMINI_GATED@, "hooks": [{"name": "planq-pre-tool-use", "type": "command", "command": "/old/planq hook pre-tool-use --host gemini", "timeout": 10000}]},
      {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "my-audit"}]}
    ],
    "SessionStart": [{"matcher": "*", "hooks": [{"name": "planq-session-start", "type": "command", "command": "/old/planq hook session-start --host gemini", "timeout": 30000}]}],
    "AfterAgent": [
      {"hooks": [{"name": "planq-stop", "type": "command", "command": "/opt/planq/bin/planq hook stop --host gemini", "timeout": 30000}]},
      {"hooks": [{"name": "planq-stop", "type": "command", "command": "/old/planq hook stop --host gemini", "timeout": 30000}]}
    ]
  }
}
`,
	},
	"copilot": {
		"planq.json": `{
  "version": 1,
  "hooks": {
    "preToolUse": [{"type": "command", "bash": "my-audit"}],
    "PreToolUse": [
      {"type": "command", "bash": "/old/planq hook pre-tool-use --host copilot", "timeoutSec": 120},
      {"type": "command", "bash": "my-audit", "timeoutSec": 5}
    ],
    "Stop": [
      {"type": "command", "bash": "/opt/planq/bin/planq hook stop --host copilot", "timeoutSec": 60},
      {"type": "command", "bash": "/old/planq hook stop --host copilot", "timeoutSec": 60}
    ],
    "PreCompact": [{"type": "command", "bash": "/opt/planq/bin/planq hook pre-compact --host copilot", "timeoutSec": 60}]
  }
}
`,
		"settings.json": `{
  "model": "gpt-5",
  "hooks": {
    "PreToolUse": [
      {"type": "command", "bash": "/old/planq hook pre-tool-use --host copilot", "timeoutSec": 120},
      {"type": "command", "bash": "my-audit", "timeoutSec": 5}
    ],
    "PreCompact": [{"type": "command", "bash": "/opt/planq/bin/planq hook pre-compact --host copilot", "timeoutSec": 60}]
  }
}
`,
		"mcp.json":                "{\n  \"mcpServers\": {\n    \"github\": {\"type\": \"local\", \"command\": \"gh-mcp\", \"tools\": [\"*\"]}\n  }\n}\n",
		"mcp-config.json":         "{\n  \"mcpServers\": {\n    \"github\": {\"type\": \"local\", \"command\": \"gh-mcp\", \"tools\": [\"*\"]}\n  }\n}\n",
		"planq.instructions.md":   "---\napplyTo: \"**\"\n---\nMy own line about planq.\n",
		"copilot-instructions.md": "# My instructions\n\nBe brief.",
	},
	"opencode": {
		"opencode.json": "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"theme\": \"dark\",\n  \"mcp\": {\"github\": {\"type\": \"local\", \"command\": [\"gh-mcp\"]}}\n}\n",
	},
}
