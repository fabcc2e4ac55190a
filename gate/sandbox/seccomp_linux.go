//go:build linux

package sandbox

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Offsets in struct seccomp_data, which a seccomp filter reads.
const (
	seccompNr     = 0  // the system call's number
	seccompArch   = 4  // the AUDIT_ARCH_* of its entry point
	seccompArg0   = 16 // args[0]; its low half on a little-endian machine
	seccompArg1   = 24 // args[1]; its low half
	x32SyscallBit = 0x40000000
)

// refusedCalls are the system calls a sandboxed command cannot make, and
// the error it gets. io_uring can open sockets and files without the
// system calls the sandbox judges, so it is not there (ENOSYS: programs
// fall back to the usual calls). A command run as root could use the rest
// to reach past the sandbox: loading eBPF programs or kernel modules,
// replacing the kernel, opening a file by its handle instead of its path.
var refusedCalls = []struct {
	nr    uint32
	errno syscall.Errno
}{
	{unix.SYS_IO_URING_SETUP, syscall.ENOSYS}, {unix.SYS_IO_URING_ENTER, syscall.ENOSYS}, {unix.SYS_IO_URING_REGISTER, syscall.ENOSYS},
	{unix.SYS_BPF, syscall.EPERM}, {unix.SYS_INIT_MODULE, syscall.EPERM}, {unix.SYS_FINIT_MODULE, syscall.EPERM},
	{unix.SYS_DELETE_MODULE, syscall.EPERM}, {unix.SYS_KEXEC_LOAD, syscall.EPERM}, {unix.SYS_KEXEC_FILE_LOAD, syscall.EPERM},
	{unix.SYS_OPEN_BY_HANDLE_AT, syscall.EPERM},
}

// refusedIoctls are the ioctl requests a sandboxed command cannot make
// (EPERM), on any descriptor, whatever the bits above the request's 32
// (the kernel ignores them): TIOCSTI and TIOCLINUX type into a terminal,
// whose reader outside the sandbox (the user's shell, once the host
// exits) would run what was typed, and Landlock holds only terminals the
// command opens itself; FS_IOC_SETFLAGS (chattr: immutable, append-only),
// FS_IOC_FSSETXATTR and FS_IOC_ENABLE_VERITY change a project file through
// a descriptor opened for reading, which Landlock lets through.
var refusedIoctls = []uint32{
	unix.TIOCSTI, unix.TIOCLINUX,
	unix.FS_IOC_SETFLAGS, fsIOC32SetFlags, fsIOCFSSetXattr, unix.FS_IOC_ENABLE_VERITY,
}

// The ioctl requests x/sys/unix does not name: _IOW('f', 2, int) and
// _IOW('X', 32, struct fsxattr).
const (
	fsIOC32SetFlags = 0x40046602
	fsIOCFSSetXattr = 0x401c5820
)

// socketFilter is the seccomp program that keeps a sandboxed command from
// reaching daemons the sandbox cannot hold, from the system calls of
// refusedCalls and from the ioctl requests of refusedIoctls. socket(AF_UNIX, …) fails with EPERM: tmux, screen,
// docker, systemd, ssh-agent and editor servers listen on unix sockets,
// and any of them could write the project on the command's behalf. System
// calls made through another architecture's entry point (a 32-bit
// program's int 0x80 on x86-64, where socketcall opens sockets; the x32
// ABI) fail with ENOSYS. Pairs of connected sockets (socketpair) stay
// allowed: they reach no one else. It is a few dozen instructions written out
// here rather than built by a filter library, whose syscall tables cost
// every hook process a quarter of a millisecond to build.
func socketFilter() ([]bpf.Instruction, error) {
	if nativeArch == 0 {
		return nil, fmt.Errorf("seccomp: planq has no socket filter for this architecture")
	}
	ret := func(errno syscall.Errno) bpf.RetConstant {
		return bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(errno)}
	}
	// The program: tests that jump forward to one of the returns at its
	// end (target), by index, fixed up once the tests are counted.
	type test struct {
		ins    bpf.Instruction
		target int // index of the return jumped to when the test holds; -1: the next test
	}
	const (
		toAllow = iota
		toENOSYS
		toEPERM
		toSocket
		toIoctl
	)
	var tests []test
	add := func(ins bpf.Instruction, target int) { tests = append(tests, test{ins, target}) }
	add(bpf.LoadAbsolute{Off: seccompArch, Size: 4}, -1)
	add(bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: nativeArch}, toENOSYS)
	add(bpf.LoadAbsolute{Off: seccompNr, Size: 4}, -1)
	add(bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: x32SyscallBit}, toENOSYS)
	for _, c := range refusedCalls {
		target := toEPERM
		if c.errno == syscall.ENOSYS {
			target = toENOSYS
		}
		add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: c.nr}, target)
	}
	add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKET}, toSocket)
	add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_IOCTL}, toIoctl)
	// The ends, after the tests: allow, ENOSYS, EPERM, the socket check
	// (allow unless the domain is AF_UNIX), and the ioctl check (allow
	// unless the request, its low 32 bits, is one of refusedIoctls).
	ends := []bpf.Instruction{
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
		ret(syscall.ENOSYS),
		ret(syscall.EPERM),
		bpf.LoadAbsolute{Off: seccompArg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: syscall.AF_UNIX, SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
		ret(syscall.EPERM),
		bpf.LoadAbsolute{Off: seccompArg1, Size: 4},
	}
	for i, req := range refusedIoctls {
		// Past the remaining tests and the allow, to the EPERM.
		ends = append(ends, bpf.JumpIf{Cond: bpf.JumpEqual, Val: req, SkipTrue: uint8(len(refusedIoctls) - i)})
	}
	ends = append(ends, bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}, ret(syscall.EPERM))
	endAt := []int{0, 1, 2, 3, 7} // where each target starts in ends
	prog := make([]bpf.Instruction, 0, len(tests)+len(ends))
	for i, t := range tests {
		if j, ok := t.ins.(bpf.JumpIf); ok && t.target >= 0 {
			skip := len(tests) - i - 1 + endAt[t.target]
			if skip > 255 {
				return nil, fmt.Errorf("seccomp: the filter is too long")
			}
			j.SkipTrue = uint8(skip)
			t.ins = j
		}
		prog = append(prog, t.ins)
	}
	return append(prog, ends...), nil
}

// restrictSockets loads socketFilter on the calling thread (no_new_privs
// must be set on it), which the command is then forked from.
func restrictSockets() error {
	prog, err := socketFilter()
	if err != nil {
		return err
	}
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}
