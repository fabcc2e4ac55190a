package gitstore

import "time"

// fileStat is the part of a file's stat data that git keeps in its index
// entries, so that git trusts an entry planq wrote without rehashing.
type fileStat struct {
	ctime              time.Time
	dev, ino, uid, gid uint32
}
