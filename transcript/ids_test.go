package transcript

import (
	"strings"
	"testing"
)

func TestValidIDs(t *testing.T) {
	t.Parallel()
	changes := []struct {
		id string
		ok bool
	}{
		{"qpvuntsm", true}, {strings.Repeat("z", 32), true}, {"k", true}, {strings.Repeat("k", 64), true},
		// jj writes change ids with k to z only; change_id(abc123) is a revset error.
		{"abc123", false}, {"qpvuntsm1", false}, {"jjjjjjjj", false}, {"deadbeef", false},
		{"", false}, {strings.Repeat("z", 65), false}, {"../x", false}, {"a/b", false}, {"ABC", false}, {"-rf", false}, {"a b", false}, {"ü", false},
	}
	for _, tt := range changes {
		if err := ValidChangeID(tt.id); (err == nil) != tt.ok {
			t.Errorf("ValidChangeID(%q) = %v, want ok=%v", tt.id, err, tt.ok)
		}
	}
	sessions := []struct {
		id string
		ok bool
	}{
		{"3f2a9c1e-77d0-4c1b-9a55-0d7e2b6f1c20", true}, {"abc_DEF-1", true}, {strings.Repeat("x", 128), true},
		{"", false}, {strings.Repeat("x", 129), false}, {"-leading", false}, {"_leading", false}, {"../etc", false}, {"a/b", false}, {"a\x00b", false}, {"a.b", false},
	}
	for _, tt := range sessions {
		if err := ValidSessionID(tt.id); (err == nil) != tt.ok {
			t.Errorf("ValidSessionID(%q) = %v, want ok=%v", tt.id, err, tt.ok)
		}
	}
}
