package claude

import (
	"strings"
	"testing"
)

func TestMangleDirIsClaudeCodes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"/home/alice/src/my.project_1", "-home-alice-src-my-project-1"},
		{"/tmp/é x", "-tmp---x"},
		{"/tmp/😀", "-tmp---"}, // two UTF-16 units
	} {
		if got := MangleDir(c.in); got != c.want {
			t.Errorf("MangleDir(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Past 200 units: cut, and Java's hashCode of the path in base 36.
	long := "/" + strings.Repeat("a", 250)
	got := MangleDir(long)
	if !strings.HasPrefix(got, "-"+strings.Repeat("a", 199)+"-") || len(got) <= 201 {
		t.Fatalf("MangleDir(long) = %q", got)
	}
	// "Aa" and "BB" collide in Java's hashCode: the same suffix.
	a, b := MangleDir(long[:240]+"Aa"), MangleDir(long[:240]+"BB")
	if a[201:] != b[201:] {
		t.Errorf("hash suffixes differ: %q vs %q", a[201:], b[201:])
	}
}
