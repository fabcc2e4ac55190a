package gitstore

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/planq-dev/planq/internal/atomicfile"
)

// VerifiedPacksFile, in the bare repository, is what Check remembers
// between runs, so that a state repo beside a thousand session lineages
// (hundreds of megabytes of packs, thousands of their objects) is checked
// as fast as one without them:
//
//   - the packs whose whole content it hashed and found matching their
//     checksum, with the stat data they had then. A pack is immutable once
//     written, so while its size, times and inode stay the same Check
//     compares only its trailer with its index. A pack written to in place
//     (its ctime moves), replaced or cut short is hashed again, and so is
//     every pack once reverifyAfter has passed since its last hash, so that
//     damage that leaves the stat data alone (a failing disk) is found too;
//   - the refs whose whole history it walked and found complete in packs
//     alone (no loose object), with their commit and those packs: while a
//     ref still names that commit and each of those packs is there and
//     sound, everything the ref reaches is still there, and the walk skips
//     it. A ref that moved, or whose packs were repacked or deleted, is
//     walked again.
const VerifiedPacksFile = "planq-verified-packs"

// reverifyAfter is how long a pack's whole-content hash is trusted.
const reverifyAfter = 7 * 24 * time.Hour

// packStamp is what a verified pack looked like when it was hashed.
type packStamp struct {
	size, mtime, ctime int64 // bytes, and times in Unix nanoseconds (ctime 0 where there is none)
	ino                uint32
	verified           int64 // when it was hashed, Unix seconds
}

// stampOf returns the stamp of the pack file st describes, hashed at now.
func stampOf(st os.FileInfo, now time.Time) packStamp {
	s := packStamp{size: st.Size(), mtime: st.ModTime().UnixNano(), verified: now.Unix()}
	if fs, ok := statOf(st); ok {
		s.ctime, s.ino = fs.ctime.UnixNano(), fs.ino
	}
	return s
}

// same reports whether the file is, by its stat data, the one that was
// hashed, and was hashed recently enough to be trusted at now.
func (s packStamp) same(o packStamp, now time.Time) bool {
	// Like git's "racily clean" index entries: a hash taken in the same
	// second as the file last changed (verified is whole seconds, and some
	// file systems keep no finer times) may have missed a later write of
	// that second, so it is not trusted.
	changed := max(s.mtime, s.ctime)
	return s.size == o.size && s.mtime == o.mtime && s.ctime == o.ctime && s.ino == o.ino &&
		time.Unix(0, changed).Before(time.Unix(s.verified, 0)) && now.Sub(time.Unix(s.verified, 0)) < reverifyAfter
}

// checkRecord is what VerifiedPacksFile holds.
type checkRecord struct {
	packs map[string]packStamp // pack file name → its stamp when hashed
	sets  map[string][]string  // pack set id → pack file names
	refs  map[string]refWalked // ref → the walk that found it complete
}

// refWalked is a ref's complete walk: the commit it named, and the id of
// the set of packs that held everything it reached.
type refWalked struct {
	commit plumbing.Hash
	set    string
}

func newCheckRecord() checkRecord {
	return checkRecord{packs: map[string]packStamp{}, sets: map[string][]string{}, refs: map[string]refWalked{}}
}

// setID names a set of pack files.
func setID(packs []string) string {
	sum := sha1.Sum([]byte(strings.Join(packs, "\n")))
	return hex.EncodeToString(sum[:8])
}

// equal reports whether two records hold the same.
func (c checkRecord) equal(o checkRecord) bool {
	return maps.Equal(c.packs, o.packs) && maps.Equal(c.refs, o.refs) &&
		maps.EqualFunc(c.sets, o.sets, slices.Equal[[]string])
}

// readCheckRecord reads the record; a missing or damaged one is empty
// (every pack is hashed again and every ref walked, and the record written
// anew).
func readCheckRecord(bare string) checkRecord {
	out := newCheckRecord()
	data, err := os.ReadFile(filepath.Join(bare, VerifiedPacksFile))
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 7 && f[0] == "pack" && strings.HasPrefix(f[1], "pack-") && strings.HasSuffix(f[1], ".pack"):
			var n [5]int64
			ok := true
			for i := range n {
				v, err := strconv.ParseInt(f[i+2], 10, 64)
				ok = ok && err == nil
				n[i] = v
			}
			if ok {
				out.packs[f[1]] = packStamp{size: n[0], mtime: n[1], ctime: n[2], ino: uint32(n[3]), verified: n[4]}
			}
		case len(f) >= 3 && f[0] == "set" && setID(f[2:]) == f[1]:
			out.sets[f[1]] = f[2:]
		case len(f) == 4 && f[0] == "ref" && plumbing.IsHash(f[2]):
			out.refs[f[1]] = refWalked{commit: plumbing.NewHash(f[2]), set: f[3]}
		}
	}
	for ref, w := range out.refs {
		if _, ok := out.sets[w.set]; !ok {
			delete(out.refs, ref)
		}
	}
	return out
}

// write stores the record (atomically: a killed write leaves the old one),
// keeping only the pack sets its refs use. It is a cache, so a failure
// only costs the next check its time.
func (c checkRecord) write(bare string) error {
	var b strings.Builder
	b.WriteString("# what planq's integrity check hashed and walked; see VerifiedPacksFile in planq's staterepo/internal/gitstore\n")
	for _, n := range slices.Sorted(maps.Keys(c.packs)) {
		s := c.packs[n]
		fmt.Fprintf(&b, "pack %s %d %d %d %d %d\n", n, s.size, s.mtime, s.ctime, s.ino, s.verified)
	}
	used := map[string]bool{}
	for _, w := range c.refs {
		used[w.set] = true
	}
	for _, id := range slices.Sorted(maps.Keys(used)) {
		fmt.Fprintf(&b, "set %s %s\n", id, strings.Join(c.sets[id], " "))
	}
	for _, ref := range slices.Sorted(maps.Keys(c.refs)) {
		w := c.refs[ref]
		fmt.Fprintf(&b, "ref %s %s %s\n", ref, w.commit, w.set)
	}
	return atomicfile.Write(filepath.Join(bare, VerifiedPacksFile), []byte(b.String()), 0o644)
}
