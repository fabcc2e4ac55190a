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
	x32SyscallBit = 0x40000000
)

// socketFilter is the seccomp program that keeps a sandboxed command from
// reaching daemons the sandbox cannot hold. socket(AF_UNIX, …) fails with
// EPERM: tmux, screen, docker, systemd, ssh-agent and editor servers
// listen on unix sockets, and any of them could write the project on the
// command's behalf. io_uring, which can open sockets without the socket
// system call, is not there (ENOSYS, so programs fall back to the usual
// calls). System calls made through another architecture's entry point (a
// 32-bit program's int 0x80 on x86-64, where socketcall opens sockets; the
// x32 ABI) fail with ENOSYS. Pairs of connected sockets (socketpair) stay
// allowed: they reach no one else. It is written out by hand (eleven
// instructions) rather than with a filter library, whose syscall tables
// cost every hook process a quarter of a millisecond to build.
func socketFilter() ([]bpf.Instruction, error) {
	if nativeArch == 0 {
		return nil, fmt.Errorf("seccomp: planq has no socket filter for this architecture")
	}
	enosys := bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(syscall.ENOSYS)}
	eperm := bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(syscall.EPERM)}
	allow := bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}
	return []bpf.Instruction{
		/* 0 */ bpf.LoadAbsolute{Off: seccompArch, Size: 4},
		/* 1 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: nativeArch, SkipFalse: 8}, // → 10 ENOSYS
		/* 2 */ bpf.LoadAbsolute{Off: seccompNr, Size: 4},
		/* 3 */ bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: x32SyscallBit, SkipTrue: 6}, // → 10 ENOSYS
		/* 4 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKET, SkipTrue: 3}, // → 8
		/* 5 */ bpf.JumpIf{Cond: bpf.JumpLessThan, Val: unix.SYS_IO_URING_SETUP, SkipTrue: 5}, // → 11 allow
		/* 6 */ bpf.JumpIf{Cond: bpf.JumpLessOrEqual, Val: unix.SYS_IO_URING_REGISTER, SkipTrue: 3}, // → 10 ENOSYS
		/* 7 */ bpf.Jump{Skip: 3}, // → 11 allow
		/* 8 */ bpf.LoadAbsolute{Off: seccompArg0, Size: 4},
		/* 9 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: syscall.AF_UNIX, SkipTrue: 2, SkipFalse: 1}, // → 12 EPERM, 11 allow
		/* 10 */ enosys,
		/* 11 */ allow,
		/* 12 */ eperm,
	}, nil
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
