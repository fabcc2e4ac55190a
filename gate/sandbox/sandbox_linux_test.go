//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/testenv"
)

// The tests run the entry point as a child process (this test binary,
// re-run with entryEnv set), since confining is irreversible, against the
// real kernel: commands run only in temporary directories made here.
const entryEnv = "PLANQ_SANDBOX_TEST_ENTRY"

// probeEnv makes this test binary, run as a command inside the sandbox,
// try the system calls the seccomp filter refuses and print what each got.
const probeEnv = "PLANQ_SANDBOX_TEST_PROBE"

func TestMain(m *testing.M) {
	if os.Getenv(entryEnv) == "1" {
		os.Exit(Main(os.Args[1:]))
	}
	if os.Getenv(probeEnv) == "1" {
		probe()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func probe() {
	_, _, e := syscall.RawSyscall(syscall.SYS_SOCKET, syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	fmt.Printf("socket-unix:%d\n", e)
	fd, _, e := syscall.RawSyscall(syscall.SYS_SOCKET, syscall.AF_INET, syscall.SOCK_STREAM, 0)
	syscall.Close(int(fd))
	fmt.Printf("socket-inet:%d\n", e)
	_, e2 := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	fmt.Printf("socketpair:%v\n", e2 == nil)
	for _, c := range refusedCalls {
		_, _, e := syscall.RawSyscall(uintptr(c.nr), 0, 0, 0)
		fmt.Printf("call-%d:%d\n", c.nr, e)
	}
	// On stdin (a pipe here): refused before the kernel looks at the
	// descriptor, also with bits above the request's 32 set; a request
	// not refused reaches the kernel, which says the pipe is no terminal.
	for _, req := range refusedIoctls {
		_, _, e := syscall.RawSyscall(syscall.SYS_IOCTL, 0, uintptr(req), 0)
		_, _, e2 := syscall.RawSyscall(syscall.SYS_IOCTL, 0, uintptr(req)|1<<32, 0)
		fmt.Printf("ioctl-%#x:%d:%d\n", req, e, e2)
	}
	_, _, e = syscall.RawSyscall(syscall.SYS_IOCTL, 0, syscall.TCGETS, 0)
	fmt.Printf("ioctl-tcgets:%d\n", e)
}

func requireLandlock(t *testing.T) {
	t.Helper()
	if e := Detect(); e.Kind != KindLandlock {
		t.Skipf("!!! SKIPPED: no Landlock sandbox here: %s", e)
	}
}

// world is a project in a temp dir (under the system temp dir, as in
// every test) with a file in it, a clean home with a cache, and the
// environment the sandboxed commands get.
type world struct {
	root, home string
	env        []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	base := t.TempDir()
	w := &world{root: filepath.Join(base, "proj"), home: filepath.Join(base, "home")}
	for _, d := range []string{w.root, filepath.Join(w.root, "sub"), filepath.Join(w.home, ".cache")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w.root, "notes.txt"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// TMPDIR is the directory holding the project: the private TMPDIR is
	// made beside the project, which stays read-only.
	w.env = []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH"), "LANG=C", "TMPDIR=" + base, entryEnv + "=1"}
	return w
}

// run runs command in the sandbox from the project's root and returns its
// stdout, stderr and exit status.
func (w *world) run(t *testing.T, command string, stdin ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, os.Args[0], "--root", w.root, "--tool", "mcp__planq__jj_init", "--", command)
	c.Dir, c.Env = w.root, w.env
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if len(stdin) > 0 {
		c.Stdin = strings.NewReader(stdin[0])
	}
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	return out.String(), errb.String(), code
}

// treeOf is every entry of dir with its content, mode and link target.
func treeOf(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s %v", rel, fi.Mode())
		if fi.Mode()&os.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			b.WriteString(" -> " + l)
		} else if fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			b.Write(data)
		}
		b.WriteByte('\n')
		return nil
	})
	return b.String()
}

// TestProjectStaysReadOnly runs commands that write the project, each
// directly or by a trick (links, renames, .., /proc/self, descriptors,
// a file named -), and checks each one failed and left the project as it
// was, and that the refused write is explained on one added line.
func TestProjectStaysReadOnly(t *testing.T) {
	requireLandlock(t)
	t.Parallel()
	w := newWorld(t)
	before := treeOf(t, w.root)
	cmds := []string{
		`echo x > new.txt`,
		`echo x >> notes.txt`,
		`echo x > -`,
		`sort -o - notes.txt`,
		`tee copy.txt < notes.txt`,
		`rm notes.txt`,
		`rm -rf sub`,
		`mkdir made`,
		`touch notes.txt new`,
		`mv notes.txt moved.txt`,
		`mv notes.txt "$TMPDIR/stolen"`,
		`ln -s /etc/passwd link`,
		`ln notes.txt "$TMPDIR/hard"`,
		`truncate -s 0 notes.txt`,
		`: > notes.txt`,
		`cp notes.txt notes2.txt`,
		`echo x > /proc/self/cwd/new.txt`,
		`exec 3>>notes.txt; echo x >&3`,
		`ln -s "$PWD" "$TMPDIR/proj"; echo x > "$TMPDIR/proj/via-link.txt"`,
		`echo x > "$TMPDIR/../$(basename "$PWD")/dotdot.txt"`,
		`cd sub && echo x > ../up.txt`,
		`mkfifo fifo`,
		`dd if=/dev/zero of=notes.txt count=1`,
		`sh -c 'echo x > nested.txt'`,
		`(sleep 0.2; echo late > late.txt) & wait $!`,
		`perl -e 'open(my $f, ">", "perl.txt") or die "$!"'`,
		// The project's planq configuration, which could turn the
		// sandbox off for the calls after this one.
		`mkdir -p .planq && printf 'gate:\n  sandbox: off\n' > .planq/config.yaml`,
	}
	for _, c := range cmds {
		_, stderr, code := w.run(t, c)
		if code == 0 {
			t.Errorf("%s: exit 0, want a failure", c)
		}
		if !strings.Contains(stderr, "is read-only until the change is declared") || !strings.Contains(stderr, "mcp__planq__jj_init") {
			t.Errorf("%s: stderr lacks the line naming the project and jj_init:\n%s", c, stderr)
		}
		if n := strings.Count(stderr, "planq: the project"); n > 1 {
			t.Errorf("%s: the line came %d times", c, n)
		}
	}
	// A process left behind that writes later is still confined. It marks
	// in the home's cache (writable) that it tried; the test waits for the
	// mark, however long a busy machine takes to get there.
	w.run(t, `setsid sh -c 'sleep 0.3; echo later > later.txt; touch "$HOME/.cache/later-tried"' </dev/null >/dev/null 2>&1 &`)
	ctx := testenv.Context(t)
	for mark := filepath.Join(w.home, ".cache", "later-tried"); ; {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the process left behind never tried its write")
		case <-time.After(50 * time.Millisecond):
		}
	}
	if after := treeOf(t, w.root); after != before {
		t.Errorf("the project changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestWritesElsewhereAndReads: the private TMPDIR, the caches and the
// devices are writable; reading works anywhere, the project included.
func TestWritesElsewhereAndReads(t *testing.T) {
	requireLandlock(t)
	t.Parallel()
	w := newWorld(t)
	cmds := map[string]string{
		`echo tmp > "$TMPDIR/a" && cat "$TMPDIR/a"`:                                "tmp",
		`f=$(mktemp) && echo m > "$f" && cat "$f"`:                                 "m",
		`mkdir -p "$TMPDIR/d/e" && mv "$TMPDIR/d" "$TMPDIR/f" && ls "$TMPDIR/f"`:   "e",
		`echo c > "$HOME/.cache/x" && cat "$HOME/.cache/x"`:                        "c",
		`echo n > /dev/null && echo ok`:                                            "ok",
		`echo out > /dev/stdout`:                                                   "out",
		`echo err > /dev/stderr; echo ok`:                                          "ok",
		`cat notes.txt`:                                                            "notes",
		`cat /etc/hostname >/dev/null && ls / | grep -c . >/dev/null && echo read`: "read",
		`cat`:            "from stdin",
		`echo "$TMPDIR"`: "planq-sandbox-",
	}
	for c, want := range cmds {
		out, stderr, code := w.run(t, c, "from stdin\n")
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, stdout %q, want %q\nstderr: %s", c, code, out, want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(w.home, ".cache", "x")); err != nil {
		t.Errorf("the cache write did not land: %v", err)
	}
}

// TestOwnTempDirWhenWritable: with the project and the home directory
// outside the command's TMPDIR (a user's usual layout), the command keeps
// that TMPDIR, writable, and no private one is made; a command that runs
// jj gets a private one for the jj shim, removed afterwards. The project
// stays read-only either way.
func TestOwnTempDirWhenWritable(t *testing.T) {
	requireLandlock(t)
	t.Parallel()
	w := newWorld(t)
	tmp := filepath.Join(filepath.Dir(w.root), "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, _ = filepath.EvalSymlinks(tmp)
	w.env = []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH"), "LANG=C", "TMPDIR=" + tmp, entryEnv + "=1"}
	out, stderr, code := w.run(t, `echo "$TMPDIR"; echo t > "$TMPDIR/x" && cat "$TMPDIR/x"; echo x > new.txt`)
	if code == 0 || out != tmp+"\nt\n" {
		t.Errorf("exit %d, stdout %q: want TMPDIR %s kept and writable, and the project refused\n%s", code, out, tmp, stderr)
	}
	if _, err := os.Stat(filepath.Join(w.root, "new.txt")); err == nil {
		t.Error("new.txt landed in the project")
	}
	if _, err := exec.LookPath("jj"); err != nil {
		return // no jj: no shim to make
	}
	out, stderr, _ = w.run(t, `echo "$TMPDIR"; : jj`)
	if !strings.HasPrefix(out, filepath.Join(tmp, "planq-sandbox-")) {
		t.Errorf("a command naming jj got TMPDIR %q, want a private one in %s\n%s", out, tmp, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "planq-sandbox-*")); len(left) > 0 {
		t.Errorf("private TMPDIRs left behind: %v", left)
	}
}

// TestHomeInTempStaysReadOnly: with HOME inside the temporary directory
// the command inherits (a container's HOME=/tmp/…) and the project
// elsewhere, the home's dot files stay read-only (a planted .bashrc or
// jj config would run outside the sandbox later); its cache and the
// private TMPDIR stay writable.
func TestHomeInTempStaysReadOnly(t *testing.T) {
	requireLandlock(t)
	t.Parallel()
	base := t.TempDir()
	tmp, home := filepath.Join(base, "t"), filepath.Join(base, "t", "home")
	w := &world{root: filepath.Join(base, "proj"), home: home}
	for _, d := range []string{w.root, filepath.Join(home, ".cache"), filepath.Join(home, ".config")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rc := filepath.Join(home, ".bashrc")
	if err := os.WriteFile(rc, []byte("# rc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C", "TMPDIR=" + tmp, entryEnv + "=1"}
	for _, c := range []string{`echo planted >> "$HOME/.bashrc"`, `mkdir -p "$HOME/.config/jj"`, `echo x > "$HOME/.profile"`, `echo x > "$TMPDIR/../home/.gitconfig"`} {
		if _, stderr, code := w.run(t, c); code == 0 {
			t.Errorf("%s: exit 0 in the sandbox, want it refused\n%s", c, stderr)
		}
	}
	if data, _ := os.ReadFile(rc); string(data) != "# rc\n" {
		t.Errorf(".bashrc = %q: the sandboxed write landed", data)
	}
	for _, c := range []string{`echo c > "$HOME/.cache/x" && cat "$HOME/.cache/x"`, `echo t > "$TMPDIR/x" && cat "$TMPDIR/x"`} {
		if out, stderr, code := w.run(t, c); code != 0 || out == "" {
			t.Errorf("%s: exit %d %q, want it to work\n%s", c, code, out, stderr)
		}
	}
}

// TestNoDeviceNodes: a command run as root cannot make a device node in a
// writable directory (a twin of the disk would let it write the project
// below the file system); a fifo there is fine.
func TestNoDeviceNodes(t *testing.T) {
	requireLandlock(t)
	t.Parallel()
	w := newWorld(t)
	if out, stderr, code := w.run(t, `mkfifo "$TMPDIR/fifo" && echo made`); code != 0 || !strings.Contains(out, "made") {
		t.Errorf("mkfifo in TMPDIR: exit %d %q\n%s", code, out, stderr)
	}
	if os.Geteuid() != 0 {
		t.Skip("!!! SKIPPED the device nodes: only root may make them anyway")
	}
	for _, c := range []string{`mknod "$TMPDIR/null" c 1 3`, `mknod "$TMPDIR/disk" b 7 0`} {
		if _, stderr, code := w.run(t, c); code == 0 {
			t.Errorf("%s: exit 0 in the sandbox, want it refused\n%s", c, stderr)
		}
	}
	// The same outside the sandbox works: the test is not vacuous.
	dir := t.TempDir()
	if out, err := exec.Command("mknod", filepath.Join(dir, "null"), "c", "1", "3").CombinedOutput(); err != nil {
		t.Errorf("mknod outside the sandbox: %v %s", err, out)
	}
}

// TestInheritedDescriptors: a descriptor the entry point inherits beyond
// stdin, stdout and stderr (a host that leaves a project file open for
// writing) does not reach the command, which could write through it past
// Landlock; stdout and stderr still do.
func TestInheritedDescriptors(t *testing.T) {
	requireLandlock(t)
	t.Parallel()
	w := newWorld(t)
	notes := filepath.Join(w.root, "notes.txt")
	f, err := os.OpenFile(notes, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, os.Args[0], "--root", w.root, "--", `echo leaked >&3; echo out; echo err >&2`)
	c.Dir, c.Env, c.ExtraFiles = w.root, w.env, []*os.File{f}
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	_ = c.Run()
	if data, _ := os.ReadFile(notes); string(data) != "notes\n" {
		t.Errorf("notes.txt = %q: the command wrote through the inherited descriptor", data)
	}
	if out.String() != "out\n" || !strings.Contains(errb.String(), "err") {
		t.Errorf("stdout %q, stderr %q: want both passed through", out.String(), errb.String())
	}
}

// TestExitStatusAndHint: the command's status comes back (128+N for a
// signal); the line is added only when the command failed on a refused
// write.
func TestExitStatusAndHint(t *testing.T) {
	requireLandlock(t)
	t.Parallel()
	w := newWorld(t)
	for _, tt := range []struct {
		cmd      string
		code     int
		withLine bool
	}{
		{`exit 3`, 3, false},
		{`kill -TERM $$`, 128 + int(syscall.SIGTERM), false},
		{`echo "Permission denied is just text"`, 0, false},
		{`echo x > new.txt; true`, 0, false}, // refused, but the command succeeded
		{`echo x > new.txt`, 1, true},
		{`no-such-program-here`, 127, false},
	} {
		_, stderr, code := w.run(t, tt.cmd)
		if code != tt.code || strings.Contains(stderr, "planq: the project") != tt.withLine {
			t.Errorf("%s: exit %d (want %d), line=%v (want %v)\n%s", tt.cmd, code, tt.code, !tt.withLine, tt.withLine, stderr)
		}
	}
}

// TestIPCBlocked: the command cannot reach a daemon outside the sandbox
// over a unix socket (pathname or abstract), nor signal a process outside;
// TCP to localhost is not held (README says so).
func TestIPCBlocked(t *testing.T) {
	requireLandlock(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	w := newWorld(t)
	sock := filepath.Join(t.TempDir(), "daemon.sock")
	for _, addr := range []string{sock, "@planq-sandbox-test-" + fmt.Sprint(os.Getpid())} {
		ln, err := net.Listen("unix", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Write([]byte("hello\n"))
				c.Close()
			}
		}()
		target := addr
		if strings.HasPrefix(addr, "@") {
			target = "\\0" + addr[1:]
		}
		py := fmt.Sprintf(`python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('%s'); print(s.recv(9))"`, target)
		if out, stderr, code := w.run(t, py); code == 0 || strings.Contains(out, "hello") {
			t.Errorf("connecting to %s from the sandbox worked: %q %s", addr, out, stderr)
		}
		// The same from outside works: the test is not vacuous.
		if out, err := exec.Command("bash", "-c", py).CombinedOutput(); err != nil || !strings.Contains(string(out), "hello") {
			t.Errorf("connecting to %s outside the sandbox: %v %s", addr, err, out)
		}
	}
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	if e := Detect(); e.ABI >= 6 {
		if _, stderr, code := w.run(t, fmt.Sprintf("kill -TERM %d", sleeper.Process.Pid)); code == 0 {
			t.Errorf("signalling a process outside the sandbox worked: %s", stderr)
		}
	}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	go func() {
		if c, err := tcp.Accept(); err == nil {
			c.Write([]byte("tcp-ok\n"))
			c.Close()
		}
	}()
	port := tcp.Addr().(*net.TCPAddr).Port
	if out, stderr, code := w.run(t, fmt.Sprintf(`python3 -c "import socket; s=socket.create_connection(('127.0.0.1', %d)); print(s.recv(9))"`, port)); code != 0 || !strings.Contains(out, "tcp-ok") {
		t.Errorf("TCP to localhost from the sandbox: exit %d %q %s (README says it is not held)", code, out, stderr)
	}
	if err := syscall.Kill(sleeper.Process.Pid, 0); err != nil {
		t.Errorf("the process outside the sandbox is gone: %v", err)
	}
}

// TestJJAndGitInside drives real jj and git in a colocated repository as
// the project: reads work inside the sandbox, and history cannot be
// rewritten.
func TestJJAndGitInside(t *testing.T) {
	requireLandlock(t)
	for _, b := range []string{"jj", "git"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s is not installed", b)
		}
	}
	w := newWorld(t)
	w.env = append(w.env, "JJ_USER=Sandbox Test", "JJ_EMAIL=sandbox@example.com", "JJ_CONFIG="+filepath.Join(w.home, "jj.toml"))
	jj := func(args ...string) string {
		t.Helper()
		c := exec.Command("jj", args...)
		c.Dir, c.Env = w.root, w.env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("jj %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	jj("git", "init")
	jj("commit", "-m", "Base")
	if err := os.WriteFile(filepath.Join(w.root, "notes.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Reads: the change to notes.txt shows, without a snapshot outside.
	for c, want := range map[string]string{
		`jj st`:                                  "M notes.txt",
		`jj diff --git`:                          "+changed",
		`jj log -r @- --no-graph -T description`: "Base",
		`jj show -r @- --summary`:                "notes.txt",
		`git status --short`:                     "notes.txt",
		`git log --oneline -1`:                   "Base",
		`git diff --stat`:                        "notes.txt",
	} {
		out, stderr, code := w.run(t, c)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, %q, want %q\n%s", c, code, out, want, stderr)
		}
	}
	ops := jj("op", "log", "--no-graph", "-T", `id.short() ++ "\n"`)
	descs := jj("log", "-r", "::", "--no-graph", "-T", `description ++ "|"`)
	for _, c := range []string{`jj describe -r @- -m hacked`, `jj new`, `jj abandon @-`, `git commit -am hacked`, `git tag x`, `/usr/bin/env jj describe -r @- -m hacked`} {
		if _, stderr, code := w.run(t, c); code == 0 {
			t.Errorf("%s succeeded in the sandbox\n%s", c, stderr)
		}
	}
	if got := jj("log", "-r", "::", "--no-graph", "-T", `description ++ "|"`); got != descs {
		t.Errorf("history changed: %q, was %q", got, descs)
	}
	if got := jj("op", "log", "--no-graph", "-T", `id.short() ++ "\n"`); !strings.HasSuffix(got, ops) && got != ops {
		t.Errorf("jj's operations changed beyond snapshots:\n%s\nwas\n%s", got, ops)
	}
}

// TestBadInvocation: the command does not run, and one line says why.
func TestBadInvocation(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--", "true"},
		{"--root", "relative", "--", "true"},
		{"--root", "/nonexistent-planq-root", "--", "true"},
		{"--root", "/", "true"},
		{"--root", "/", "--", "a", "b"},
		{"--bogus"},
	} {
		c := exec.Command(os.Args[0], args...)
		c.Env = append(os.Environ(), entryEnv+"=1")
		out, err := c.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != ExitCannotRun || strings.Count(strings.TrimSpace(string(out)), "\n") != 0 || !strings.HasPrefix(string(out), "planq sandbox: ") {
			t.Errorf("%q: %v %q, want exit 126 and one line", args, err, out)
		}
	}
}

// TestBackgroundHolderDoesNotHang: a process the command leaves in the
// background, holding stderr open, does not keep the entry point (and so
// the host) waiting for it.
func TestBackgroundHolderDoesNotHang(t *testing.T) {
	requireLandlock(t)
	t.Parallel()
	w := newWorld(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, os.Args[0], "--root", w.root, "--", `sleep 120 >/dev/null & echo $!`) // stderr held, stdout not
	c.Dir, c.Env = w.root, w.env
	out, err := c.Output()
	if ctx.Err() != nil {
		t.Fatalf("the entry point waited for the background process: %v", err)
	}
	if err != nil {
		t.Fatalf("%v %s", err, out)
	}
	var pid int
	if _, err := fmt.Sscan(string(out), &pid); err == nil && pid > 1 {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// TestSeccompRefusals runs this test binary as the sandboxed command, to
// make the system calls the filter refuses itself: a unix socket, io_uring,
// bpf, module loading, open_by_handle_at, the ioctls that type into a
// terminal or set a file's flags; an inet socket, a socketpair and other
// ioctls still work.
func TestSeccompRefusals(t *testing.T) {
	requireLandlock(t)
	t.Parallel()
	w := newWorld(t)
	w.env = append(w.env, probeEnv+"=1")
	out, stderr, code := w.run(t, fmt.Sprintf("env -u %s %q", entryEnv, os.Args[0]))
	if code != 0 {
		t.Fatalf("the probe failed: %d %s", code, stderr)
	}
	want := []string{fmt.Sprintf("socket-unix:%d", syscall.EPERM), "socket-inet:0", "socketpair:true", fmt.Sprintf("ioctl-tcgets:%d", syscall.ENOTTY)}
	for _, c := range refusedCalls {
		want = append(want, fmt.Sprintf("call-%d:%d", c.nr, c.errno))
	}
	for _, req := range refusedIoctls {
		want = append(want, fmt.Sprintf("ioctl-%#x:%d:%d", req, syscall.EPERM, syscall.EPERM))
	}
	for _, w := range want {
		if !strings.Contains(out, w+"\n") {
			t.Errorf("the probe lacks %q:\n%s", w, out)
		}
	}
}

// TestRewriteRunsAsTheOriginal runs commands the way a host runs them —
// bash -c COMMAND in the project — once as the model wrote them and once
// rewritten to run in the sandbox (Command, this test binary as the entry
// point), and wants the same output and exit status from both: quotes,
// newlines, heredocs, $'…', comments, a trailing backslash, functions,
// exit statuses, stdin, and a command of 100 KiB. A rewrite longer than a
// program's argument may be is refused with the reason, not handed to a
// shell that cannot start.
func TestRewriteRunsAsTheOriginal(t *testing.T) {
	requireLandlock(t)
	t.Parallel()
	w := newWorld(t)
	long := "echo " + strings.Repeat(`it's "$HOME" x\ y `, 5000) + "| wc -c"
	cmds := []string{
		`echo "double $HOME" 'single $HOME' $'tab\there' \$x`,
		"printf '%s\\n' a\nb\tc\necho 'line\nbreak'",
		"cat <<EOF\nheredoc $HOME\n  indented\nEOF\ncat <<'EOF'\nliteral $HOME\nEOF",
		"cat <<-EOF\n\ttabs stripped\n\tEOF",
		`echo $'\x41\u00e9\n' "$(printf '%s' sub)" ` + "`echo back`",
		"echo start # a comment; echo not run",
		"echo continued \\\n  here",
		"f() { echo \"in f: $1\"; return 3; }\nf arg; echo \"status $?\"",
		"set -e; false; echo never",
		"exit 7",
		`echo err >&2; echo out`,
		`read -r line; echo "got $line"`,
		`a=1; (a=2; echo "$a"); echo "$a"; { echo grouped; }`,
		`for i in 1 2 3; do case $i in 2) continue;; esac; echo $i; done | tr '\n' ,`,
		`echo ünïcødé ✓ '"' "'"`,
		`[[ -f notes.txt && ! -e nothing ]] && echo bashisms`,
		long,
	}
	run := func(line string) (string, string, int) {
		c := exec.Command("bash", "-c", line)
		c.Dir, c.Env = w.root, w.env
		c.Stdin = strings.NewReader("piped in\n")
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("bash -c: %v", err)
		}
		return out.String(), errb.String(), code
	}
	for _, cmd := range cmds {
		wantOut, wantErr, wantCode := run(cmd)
		// A host whose shell execs the entry point (its last command)
		// names its shell in the rewrite; one whose shell forks it (a
		// subshell, a command after it) leaves it to be found.
		named, err := Command([]string{os.Args[0]}, Invocation{Root: w.root, Tools: []string{"mcp__planq__jj_init"}, Shell: "bash", Command: cmd})
		if err != nil {
			t.Fatalf("%.60q: %v", cmd, err)
		}
		found, err := Command([]string{os.Args[0]}, Invocation{Root: w.root, Tools: []string{"mcp__planq__jj_init"}, Command: cmd})
		if err != nil {
			t.Fatalf("%.60q: %v", cmd, err)
		}
		for how, line := range map[string]string{"shell named": named, "shell found": "(" + found + ")"} {
			gotOut, gotErr, gotCode := run(line)
			if gotOut != wantOut || gotErr != wantErr || gotCode != wantCode {
				t.Errorf("%.80q (%s):\nsandboxed: exit %d, stdout %.200q, stderr %.200q\noriginal:  exit %d, stdout %.200q, stderr %.200q",
					cmd, how, gotCode, gotOut, gotErr, wantCode, wantOut, wantErr)
			}
		}
	}
	tooLong := "echo " + strings.Repeat("'", MaxCommand/4)
	if _, err := Command([]string{os.Args[0]}, Invocation{Root: w.root, Command: tooLong}); err == nil || !strings.Contains(err.Error(), "one argument") {
		t.Errorf("a %d-byte command that quotes to more than %d: err %v, want it refused", len(tooLong), MaxCommand, err)
	}
}
