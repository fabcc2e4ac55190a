package conffile

import (
	"strings"
	"testing"
)

func TestSplitBlock(t *testing.T) {
	t.Parallel()
	const b, e = "# >>> planq >>>", "# <<< planq <<<"
	tests := []struct {
		name, in, rest, err string
		at                  int
	}{
		{"none", "a = 1\n", "a = 1\n", "", -1},
		{"middle", "a = 1\n" + b + "\nx\n" + e + "\nb = 2\n", "a = 1\nb = 2\n", "", 6},
		{"no end", b + "\nx\n", "", "no end marker", 0},
		{"mid-line", "a " + b + "\n" + e + "\n", "", "not at the start of a line", 0},
		{"two", b + "\n" + e + "\n" + b + "\n" + e + "\n", "", "two planq blocks", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rest, at, err := SplitBlock("f", []byte(tt.in), b, e)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || string(rest) != tt.rest || at != tt.at {
				t.Errorf("SplitBlock = %q, %d, %v; want %q, %d", rest, at, err, tt.rest, tt.at)
			}
		})
	}
}

// PutBlock puts the block where the old one was, or after a blank line at
// the end; DropBlock takes that blank line back with it.
func TestPutBlock(t *testing.T) {
	t.Parallel()
	const block = "# >>> planq\nx\n# <<< planq\n"
	tests := []struct {
		name, rest, want string
		at               int
	}{
		{"new file", "", block, -1},
		{"appended", "a = 1\n", "a = 1\n\n" + block, -1},
		{"no final newline", "a = 1", "a = 1\n" + block, -1},
		{"in place", "a = 1\nb = 2\n", "a = 1\n" + block + "b = 2\n", 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PutBlock([]byte(tt.rest), tt.at, []byte(block))
			if string(got) != tt.want {
				t.Fatalf("PutBlock = %q, want %q", got, tt.want)
			}
			rest, at, err := SplitBlock("f", got, "# >>> planq", "# <<< planq")
			if err != nil {
				t.Fatal(err)
			}
			if back := string(DropBlock(rest, at)); back != tt.rest {
				t.Errorf("DropBlock = %q, want %q back", back, tt.rest)
			}
		})
	}
}
