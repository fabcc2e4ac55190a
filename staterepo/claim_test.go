package staterepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/project"
)

func TestClaimProject(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "My Shop")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	name := project.Derived(project.MainRoot(root)) // My-Shop-<hash of its path>
	steps := []struct {
		name    string
		give    string
		want    string
		wantErr string
	}{
		{"an invalid name is refused, nothing recorded", "../evil", "", "project name"},
		{"the default is the directory's name, cleaned, made unique", "", name, ""},
		{"again: the same, nothing changes", "", name, ""},
		{"the recorded name given: fine", name, name, ""},
		{"another name: refused, never renamed", "other", "", `already belongs to project "` + name + `"`},
	}
	for _, st := range steps {
		got, err := ClaimProject(root, st.give, home)
		if st.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), st.wantErr) {
				t.Fatalf("%s: got %q, %v; want an error saying %q", st.name, got, err, st.wantErr)
			}
		} else if err != nil || got != st.want {
			t.Fatalf("%s: got %q, %v; want %q", st.name, got, err, st.want)
		}
		cfg, err := config.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]string{true: "", false: name}[st.name == steps[0].name]; cfg.Project != want {
			t.Fatalf("%s: config records %q, want %q", st.name, cfg.Project, want)
		}
	}
}
