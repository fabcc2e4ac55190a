package gitstore

import (
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func TestCompareTellsSameAheadBehindAndDiverged(t *testing.T) {
	t.Parallel()
	r, _ := bareRepo(t)
	sig := object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1e9, 0)}
	tree, err := r.EditTree(plumbing.ZeroHash, nil)
	if err != nil {
		t.Fatal(err)
	}
	commit := func(msg string, parents ...plumbing.Hash) plumbing.Hash {
		t.Helper()
		h, err := r.WriteCommit(tree, parents, msg, sig)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	base := commit("base")
	left := commit("left", base)
	right := commit("right", base)
	tests := []struct {
		name         string
		ours, theirs plumbing.Hash
		want         Relation
	}{
		{"same commit", left, left, Same},
		{"ours has more", left, base, Ahead},
		{"theirs has more", base, right, Behind},
		{"both moved on", left, right, Diverged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Compare(tt.ours, tt.theirs)
			if err != nil || got != tt.want {
				t.Errorf("Compare = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	if _, err := r.Compare(left, plumbing.NewHash("0123456789012345678901234567890123456789")); err == nil {
		t.Error("Compare with a missing commit: no error")
	}
}
