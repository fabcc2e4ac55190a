package gemini

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestFolderTrust decides trust the way Gemini CLI 0.61.0 does
// (packages/core/src/utils/trust.ts checkPathTrust and isPathTrusted).
func TestFolderTrust(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	proj := filepath.Join(home, "code", "proj")
	if err := os.MkdirAll(filepath.Join(proj, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "link")
	if err := os.Symlink(proj, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, folders, settings string
		env                     map[string]string
		dir                     string
		trusted, known          bool
		err                     string
	}{
		{name: "no file", dir: proj},
		{name: "no rule", folders: `{"/elsewhere":"TRUST_FOLDER"}`, dir: proj},
		{name: "folder", folders: `{"` + proj + `":"TRUST_FOLDER"}`, dir: proj, trusted: true, known: true},
		{name: "inside a trusted folder", folders: `{"` + proj + `":"TRUST_FOLDER"}`, dir: filepath.Join(proj, "sub"), trusted: true, known: true},
		{name: "parent", folders: `{"` + filepath.Join(home, "code", "other") + `":"TRUST_PARENT"}`, dir: proj, trusted: true, known: true},
		{name: "longest rule wins", folders: `{"` + filepath.Join(home, "code") + `":"TRUST_FOLDER","` + proj + `":"DO_NOT_TRUST"}`, dir: proj, known: true},
		{name: "through a symlink", folders: `{"` + link + `":"TRUST_FOLDER"}`, dir: proj, trusted: true, known: true},
		{name: "comments", folders: "{\n// mine\n\"" + proj + "\": \"TRUST_FOLDER\" /* yes */\n}", dir: proj, trusted: true, known: true},
		{name: "folder trust off", settings: `{"security":{"folderTrust":{"enabled":false}}}`, dir: proj, trusted: true, known: true},
		{name: "env trusts", env: map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}, dir: proj, trusted: true, known: true},
		{name: "env distrusts", folders: `{"` + proj + `":"TRUST_FOLDER"}`, env: map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "false"}, dir: proj, known: true},
		{name: "restricted", env: map[string]string{"GEMINI_RESTRICTED_MODE": "true"}, dir: proj, known: true},
		{name: "bad level", folders: `{"` + proj + `":"YES"}`, dir: proj, err: "invalid trust level"},
		{name: "not an object", folders: `[1]`, dir: proj, err: "not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := t.TempDir()
			gdir := filepath.Join(h, ".gemini")
			if err := os.MkdirAll(gdir, 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.folders != "" {
				testenv.WriteFile(t, gdir, "trustedFolders.json", tt.folders)
			}
			if tt.settings != "" {
				testenv.WriteFile(t, gdir, "settings.json", tt.settings)
			}
			env := map[string]string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(h, "none.json")}
			for k, v := range tt.env {
				env[k] = v
			}
			o := conffile.Options{Home: h, Getenv: func(k string) string { return env[k] }}
			got, err := FolderTrust(o, tt.dir)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got.Trusted != tt.trusted || got.Known != tt.known {
				t.Fatalf("FolderTrust = %+v, %v; want trusted %v known %v", got, err, tt.trusted, tt.known)
			}
		})
	}
}

// Doctor's findings: an untrusted project says how to trust it, a trusted
// one says why, hooks switched off and a gate that cannot start are
// reported.
func TestInstalledFindings(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	real, _ := filepath.EvalSymlinks(repo)
	o := installOpts(t, repo, conffile.ScopeProject)
	res, err := Adapter{}.Install(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "is not trusted") {
		t.Fatalf("install did not say the folder is untrusted: %q", res.Notes)
	}
	noSystem := func(k string) string {
		if k == "GEMINI_CLI_SYSTEM_SETTINGS_PATH" {
			return filepath.Join(o.Home, "no-system.json")
		}
		return ""
	}
	where := conffile.Options{ProjectDir: repo, Home: o.Home, Getenv: noSystem}
	find := func(check string) conffile.Finding {
		t.Helper()
		for _, st := range (Adapter{}).Installed(where) {
			for _, f := range st.Findings {
				if f.Check == check {
					return f
				}
			}
		}
		return conffile.Finding{Check: "none"}
	}
	f := find("trust")
	if f.OK || !strings.Contains(f.Detail, "not trusted") || !strings.Contains(f.Fix, `"`+real+`": "TRUST_FOLDER"`) || !strings.Contains(f.Fix, "Trust folder") {
		t.Fatalf("untrusted: %+v", f)
	}
	testenv.WriteFile(t, filepath.Join(o.Home, ".gemini"), "trustedFolders.json", `{"`+real+`":"TRUST_FOLDER"}`)
	if f := find("trust"); !f.OK || !strings.Contains(f.Detail, "is trusted") {
		t.Fatalf("trusted: %+v", f)
	}
	if f := find("hooks-enabled"); f.Check != "none" {
		t.Fatalf("hooks reported off: %+v", f)
	}
	testenv.WriteFile(t, filepath.Join(o.Home, ".gemini"), "settings.json", `{"hooksConfig":{"enabled":false}}`)
	if f := find("hooks-enabled"); f.OK || !strings.Contains(f.Detail, "hooksConfig.enabled: false") {
		t.Fatalf("hooks off: %+v", f)
	}
	testenv.WriteFile(t, filepath.Join(o.Home, ".gemini"), "settings.json", `{"hooksConfig":{"disabled":["planq-pre-tool-use"]}}`)
	if f := find("hooks-enabled"); f.OK || !strings.Contains(f.Detail, "planq-pre-tool-use") {
		t.Fatalf("gate hook disabled: %+v", f)
	}
	if f := find("fail-open"); !f.OK || !strings.Contains(f.Detail, "turns any failure of its binary into exit 2") {
		t.Fatalf("fail-open with the gate in place: %+v", f)
	}
	if err := os.Remove(o.HookExe); err != nil {
		t.Fatal(err)
	}
	if f := find("fail-open"); f.OK || !strings.Contains(f.Detail, "is not an executable, so every gated tool call is held back") {
		t.Fatalf("gate binary gone: %+v", f)
	}
}
