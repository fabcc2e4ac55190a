//go:build linux

package sandbox

import (
	"fmt"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// writeRights are the file system rights Landlock restricts: every right
// that writes (content, truncation, creating, removing, linking and
// renaming entries, device ioctls), by the ABI that introduced it. Reading
// and executing are not handled, so they stay allowed everywhere.
func writeRights(abi int) landlock.AccessFSSet {
	r := landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock |
		ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym)
	if abi >= 2 {
		r |= ll.AccessFSRefer
	}
	if abi >= 3 {
		r |= ll.AccessFSTruncate
	}
	if abi >= 5 {
		// ioctl on device files opened in the sandbox: TIOCSTI on a newly
		// opened /dev/tty could type commands into the terminal a shell
		// outside the sandbox reads. Granted nowhere.
		r |= ll.AccessFSIoctlDev
	}
	return r
}

// scopes are the IPC scopes Landlock restricts (ABI 6): connecting to an
// abstract unix socket and signalling a process outside the sandbox.
func scopes(abi int) landlock.ScopedSet {
	if abi >= 6 {
		return landlock.ScopedSet(ll.ScopeAbstractUnixSocket | ll.ScopeSignal)
	}
	return 0
}

// restrictThread confines the calling OS thread (locked to its goroutine
// by the caller), and so every process forked from it, to pl: no write
// anywhere but pl's places, no abstract unix socket or signal outside the
// sandbox. It sets no_new_privs on the thread, as Landlock requires. The
// other threads of this process stay as they are: they run only planq's
// own code. (Go 1.28's SysProcAttr.UseLandlock will do this in the child
// instead.)
func restrictThread(abi int, pl Plan) error {
	handled := writeRights(abi)
	cfg := landlock.Config{HandledAccessFS: handled, Scoped: scopes(abi)}.BestEffort()
	// Device nodes are made nowhere: a command run as root could make a
	// twin of the disk (or of /dev/mem) in a writable directory and write
	// the project through it.
	dirRights := handled &^ landlock.AccessFSSet(ll.AccessFSIoctlDev|ll.AccessFSMakeChar|ll.AccessFSMakeBlock)
	fileRights := handled & landlock.AccessFSSet(ll.AccessFSWriteFile|ll.AccessFSTruncate)
	var rules []landlock.Rule
	if len(pl.Dirs) > 0 {
		rules = append(rules, landlock.PathAccess(dirRights, pl.Dirs...))
	}
	if len(pl.Files) > 0 {
		rules = append(rules, landlock.PathAccess(fileRights, pl.Files...).IgnoreIfMissing())
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("landlock: this kernel restricts nothing planq asks for")
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}
