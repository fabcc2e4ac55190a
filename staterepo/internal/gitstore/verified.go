package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/planq-dev/planq/internal/atomicfile"
)

// VerifiedPacksFile, in the bare repository, remembers the packs whose
// whole content Check hashed and found matching their checksum, with the
// stat data they had then: a pack is immutable once written, so while its
// size, times and inode stay the same Check compares only its trailer with
// its index, instead of hashing hundreds of megabytes of session lineages
// on every `planq state status`. A pack written to in place (its ctime
// moves), replaced or cut short is hashed again, and so is every pack once
// reverifyAfter has passed since its last hash, so that damage that leaves
// the stat data alone (a failing disk) is found too.
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

// verifiedPacks is the record read from VerifiedPacksFile: pack file name
// → stamp.
type verifiedPacks map[string]packStamp

// readVerified reads the record; a missing or damaged one is empty (every
// pack is hashed again, and the record written anew).
func readVerified(bare string) verifiedPacks {
	out := verifiedPacks{}
	data, err := os.ReadFile(filepath.Join(bare, VerifiedPacksFile))
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 6 || !strings.HasPrefix(f[0], "pack-") || !strings.HasSuffix(f[0], ".pack") {
			continue
		}
		var n [5]int64
		ok := true
		for i := range n {
			v, err := strconv.ParseInt(f[i+1], 10, 64)
			ok = ok && err == nil
			n[i] = v
		}
		if ok {
			out[f[0]] = packStamp{size: n[0], mtime: n[1], ctime: n[2], ino: uint32(n[3]), verified: n[4]}
		}
	}
	return out
}

// write stores the record (atomically: a killed write leaves the old one).
// It is a cache, so a failure only costs the next check its time.
func (v verifiedPacks) write(bare string) error {
	names := make([]string, 0, len(v))
	for n := range v {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("# packs whose whole content planq hashed: name size mtime-ns ctime-ns inode verified-unix\n")
	for _, n := range names {
		s := v[n]
		fmt.Fprintf(&b, "%s %d %d %d %d %d\n", n, s.size, s.mtime, s.ctime, s.ino, s.verified)
	}
	return atomicfile.Write(filepath.Join(bare, VerifiedPacksFile), []byte(b.String()), 0o644)
}
