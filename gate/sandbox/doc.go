// Package sandbox runs a locked shell command inside an OS sandbox in which
// the project is read-only, so that the kernel, not the gate's reading of
// the command, keeps the promise that nothing an agent runs modifies the
// project before its change is declared.
//
// # How a command gets here
//
// While the gate is locked, the pre-tool-use hook of a host that can
// change a tool call's input (session.Host.Rewrites) answers a shell call
// the gate is not sure modifies (gate.Verdict.Sure) by rewriting it to
//
//	planq-sandbox --root PROJECT --tool mcp__planq__jj_init [--shell=/bin/bash] -- 'ORIGINAL'
//
// (Command builds it, every word single-quoted, and refuses a command
// longer than a program's argument may be, MaxCommand; planq-hook sandbox
// and planq hook sandbox are the same entry point). Run is that entry
// point: it runs ORIGINAL with the host's shell, named as the host names it
// (its $0, which the shell's error messages start with): the --shell the
// host's adapter knows (session.Host.Shell, for a host whose shell execs
// the entry point), else the shell that ran it (Linux: /proc/PPID/exe and
// its argv[0], when that is a POSIX shell), else $SHELL, else bash, in
// the same working directory and environment (TMPDIR kept when the
// sandbox lets the command write there; else, when the temporary directory
// holds the project or the home directory, and for the jj shim below, set
// to a private directory made beside the project and removed after the
// run), stdin and stdout passed
// through, stderr copied, no other descriptor passed on (Landlock judges a
// file when it is opened, not a descriptor inherited open), and the
// command's exit status (128+N for signal N). When the command fails and its stderr reports a refused write
// (EACCES, EPERM, EROFS), one line is added naming the project as read-only
// until the change is declared and the tool to call (Hint).
//
// # What is writable
//
// NewPlan derives it, in one place for every OS: the system's temporary
// directories, the build caches (package dirs) and a private TMPDIR, and
// the device files programs write (/dev/null, /dev/tty, the terminal's
// pseudo-terminal). Never the project (the whole tree: working copy, .jj,
// .git, and a workspace's repository elsewhere), and never a tree that
// holds a place code is loaded from (PATH directories, tool homes, the
// planq binary's own directory) or the home directory's dot files; a
// project under /tmp stays read-only, since only directories beside it are
// granted. Reading and executing are allowed everywhere.
//
// # Linux: Landlock and seccomp
//
// Landlock handles only the rights that write (write_file, truncate,
// make_*, remove_*, refer, ioctl_dev) and grants them on the plan's places,
// but for making device nodes, granted nowhere (as root, a twin of the disk
// in /tmp would write the project below the file system); ABI 3 (Linux
// 6.2, truncate) is the minimum, below it the gate stays parser-only. ioctl on a device opened in the sandbox is granted nowhere:
// TIOCSTI on a freshly opened /dev/tty would type into a shell outside.
// ABI 6's IPC scoping keeps the command from signalling processes outside
// the sandbox and from connecting to abstract unix sockets served outside.
// A seccomp filter makes socket(AF_UNIX) fail with EPERM, takes io_uring
// away (ENOSYS), refuses what a command run as root could reach past the
// sandbox with (bpf, loading kernel modules, kexec, open_by_handle_at),
// the ioctls that type into a terminal (TIOCSTI, TIOCLINUX: the shell
// reading it outside would run what was typed) or set a file's flags
// through a descriptor opened for reading (chattr +i, fs-verity), and
// foreign-architecture system calls: tmux,
// screen, docker, podman, systemd (systemd-run), ssh-agent, D-Bus and
// editor servers all listen on pathname unix sockets, and any of them would
// write the project on the command's behalf. Measured here on 55 everyday
// read-only commands (ls, ps, git and jj reads, python3 -c, node -e, go
// build, vet and test, curl, getent, find, grep, npm, pip, script, man, …)
// run with and without the sandbox, the exit statuses were the same; what
// fails is the client of such a daemon (tmux ls, docker ps, systemctl
// status, ssh with an agent), which the parser denies while locked anyway.
// glibc falls back by itself when nscd's socket is refused, and socketpair
// (pipes between a program's own processes) stays allowed. TCP, including to localhost, is not restricted:
// Landlock can limit ports, not addresses, and builds need the network. A
// local server that writes the project on request is beyond the sandbox,
// as are hard links to project files made before the gate locked.
//
// Both are applied to the entry point's thread that forks the shell (locked
// to its goroutine for the rest of the run), so only that thread and the
// command are confined; another thread removes a private TMPDIR
// afterwards. The command gets SIGTERM if the entry point dies first.
//
// # jj and git inside
//
// jj snapshots the working copy into .jj at the start of every command,
// which the sandbox refuses. So when the command mentions jj (RunsJJ), the
// entry point snapshots it first (jj util snapshot, unconfined), and puts a
// jj first on PATH that runs the real one with --ignore-working-copy: jj
// log, st, diff and show read what was just recorded, and anything that
// writes (jj describe -r @-, jj new, jj abandon) is refused by the kernel.
// git status, log and diff work (git status's index refresh is
// opportunistic); git commit cannot take .git/index.lock. The by-hand
// declarations (jj describe -m, jj new -m, jj commit -m, jj git init in
// the project) are never sandboxed: the gate lets them run as before.
//
// # macOS: Seatbelt
//
// sandbox-exec runs the shell with SeatbeltProfile: everything allowed, then
// writing forbidden under the places code is loaded from, allowed in the
// plan's places, and forbidden under the project last (Seatbelt applies the
// last matching rule); renaming a directory above the project, connecting
// to unix sockets, sending Apple events (osascript telling Terminal to run
// a command) and signalling processes outside are forbidden. The
// profile is a pure function, unit-tested everywhere; it has not been run
// by planq's tests, which run on Linux.
//
// # Elsewhere
//
// Windows, and a Linux without Landlock ABI 3 (or a container that forbids
// it), have no sandbox: Detect says why, the gate stays parser-only, and
// planq doctor and the session-start context say so.
//
// # Cost
//
// The entry point runs for every shell command while the gate is locked, so
// it is its own binary, planq-sandbox, linking only this package: it starts
// about 0.9 ms sooner than planq-hook sandbox and 10 ms sooner than planq
// hook sandbox (measured here; Entry falls back to those when it is not
// installed). It turns the garbage collector off and runs on one processor
// (a third of its CPU time went to both), resolves each path prefix once,
// and waits for the command in one goroutine; it makes a private TMPDIR
// only when the command's own cannot be writable. make bench
// (BenchmarkSandbox in cmd/planq) compares a sandboxed run of a trivial
// command with the same command run by bash alone, in one run: 2.4-2.9 ms
// more at load average 2 on a 2-core VM, 2.7-3.3 ms at load 6-14.
package sandbox
