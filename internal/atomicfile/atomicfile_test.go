package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		before  func(t *testing.T, path string) // what is at path first
		perm    os.FileMode
		want    string // the content after; "" with wantErr: unchanged
		wantErr bool
	}{
		{"a new file in a new directory", func(*testing.T, string) {}, 0o644, "new\n", false},
		{"replaces a file", func(t *testing.T, p string) { writeFile(t, p, "old content, longer than the new\n", 0o644) }, 0o600, "new\n", false},
		{"a directory in the way stays", func(t *testing.T, p string) {
			if err := os.MkdirAll(filepath.Join(p, "x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, 0o644, "", true},
	}
	writers := []struct {
		name  string
		write func(string, []byte, os.FileMode) error
	}{{"Write", Write}, {"WriteUnsynced", WriteUnsynced}}
	for _, w := range writers {
		for _, tt := range tests {
			t.Run(w.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				path := filepath.Join(dir, "sub", "file.json")
				tt.before(t, path)
				err := w.write(path, []byte("new\n"), tt.perm)
				if (err != nil) != tt.wantErr {
					t.Fatalf("Write = %v, want an error: %v", err, tt.wantErr)
				}
				ents, _ := os.ReadDir(filepath.Dir(path))
				if len(ents) != 1 {
					t.Errorf("the directory holds %d entries, want the file alone (a temporary file left behind?)", len(ents))
				}
				if tt.wantErr {
					if st, err := os.Stat(filepath.Join(path, "x")); err != nil || !st.IsDir() {
						t.Errorf("what was in the way changed: %v", err)
					}
					return
				}
				got, err := os.ReadFile(path)
				if err != nil || string(got) != tt.want {
					t.Fatalf("content %q, %v; want %q", got, err, tt.want)
				}
				if st, _ := os.Stat(path); runtime.GOOS != "windows" && st.Mode().Perm() != tt.perm {
					t.Errorf("mode %v, want %v", st.Mode().Perm(), tt.perm)
				}
			})
		}
	}
}

func writeFile(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
}
