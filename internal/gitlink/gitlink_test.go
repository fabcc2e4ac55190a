package gitlink

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		make    func(dir string)
		admin   string // relative to the test dir; "" none
		found   bool
		wantErr string
	}{
		{"no .git", func(string) {}, "", false, ""},
		{"an absolute link", func(d string) {
			os.WriteFile(filepath.Join(d, ".git"), []byte("gitdir: /repo.git/worktrees/a\n"), 0o644)
		}, "/repo.git/worktrees/a", true, ""},
		{"a relative link", func(d string) { os.WriteFile(filepath.Join(d, ".git"), []byte("gitdir: ../x/./admin\n"), 0o644) }, "../x/admin", true, ""},
		{"a repository of its own", func(d string) { os.Mkdir(filepath.Join(d, ".git"), 0o755) }, "", true, "separate git repository"},
		{"a symlink", func(d string) { os.Symlink("/etc/passwd", filepath.Join(d, ".git")) }, "", true, "not a regular file"},
		{"not a link", func(d string) { os.WriteFile(filepath.Join(d, ".git"), []byte("hello\n"), 0o644) }, "", true, "not a worktree link"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.make(dir)
			admin, found, err := Read(dir)
			want := tt.admin
			if want != "" && !filepath.IsAbs(want) {
				want = filepath.Join(dir, want)
			}
			if found != tt.found || admin != want || (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Read = %q, %v, %v; want %q, %v, error %q", admin, found, err, want, tt.found, tt.wantErr)
			}
		})
	}
}
