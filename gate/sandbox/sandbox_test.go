package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// tricky are commands whose quoting must survive the rewrite byte for byte.
var tricky = []string{
	`echo hi`,
	`python3 -c "open('x','w')"`,
	`echo 'it'\''s' "$HOME" \$x $(date) ` + "`id`",
	"printf '%s\\n' a\nb\tc",
	`a && b || c; d | e & f`,
	`''`,
	``,
	`'`,
	`echo "ünïcødé ✓"`,
}

// TestCommandReadsBackInAShell: a rewritten command, read by a real shell
// (the way a host runs it), passes the original to the entry point as one
// argument, unchanged; Unwrap reads the invocation back.
func TestCommandReadsBackInAShell(t *testing.T) {
	t.Parallel()
	shells := []string{"bash", "sh", "dash", "zsh"}
	for _, cmd := range tricky {
		inv := Invocation{Root: "/p r'oj", Tools: []string{"planq_jj_git_init", "planq_jj_init"}, Shell: "/bin/bash", Command: cmd}
		line, err := Command([]string{"printf", `%s\0`}, inv)
		if err != nil {
			t.Fatal(err)
		}
		entry, back, ok := Unwrap(strings.Replace(line, "'printf' '%s\\0'", "'planq-hook' 'sandbox'", 1))
		if !ok || !reflect.DeepEqual(back, inv) || !reflect.DeepEqual(entry, []string{"planq-hook", "sandbox"}) {
			t.Errorf("Unwrap(Command(%q)) = %q %+v %v", cmd, entry, back, ok)
		}
		for _, sh := range shells {
			if _, err := exec.LookPath(sh); err != nil {
				continue
			}
			out, err := exec.Command(sh, "-c", line).Output()
			if err != nil {
				t.Fatalf("%s -c %s: %v", sh, line, err)
			}
			got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			if want := inv.Args(); !slices.Equal(got, want) {
				t.Errorf("%s read %q as %q, want %q", sh, line, got, want)
			}
		}
	}
	if _, err := Command([]string{"x"}, Invocation{Root: "/", Command: "a\x00b"}); err == nil {
		t.Errorf("a command with a NUL byte was quoted")
	}
	if entry, inv, ok := Unwrap(`'/bin/planq-sandbox' '--root' '/p' '--' 'ls'`); !ok || !slices.Equal(entry, []string{"/bin/planq-sandbox"}) || inv.Command != "ls" {
		t.Errorf("Unwrap of a planq-sandbox rewrite: %q %+v %v", entry, inv, ok)
	}
	for _, s := range []string{"ls", "'a' b", "'a''b", "'a' 'sandbox' '--bogus'", "'x' 'sandbox' '--root' '/' '--' 'a' 'b'", "'--root' '/' '--' 'ls'"} {
		if _, _, ok := Unwrap(s); ok {
			t.Errorf("Unwrap(%q) took it for a rewrite", s)
		}
	}
}

func TestRunsJJ(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]bool{
		"jj log":                  true,
		"cd x && jj st":           true,
		"bash -c 'jj diff'":       true,
		"/usr/local/bin/jj show":  true,
		"echo jjj; git status":    false,
		"grep -r jjx .":           false,
		"cat notes-jj.txt":        false,
		`FOO=1 jj log -T 'x'`:     true,
		"(jj op log)":             true,
		"ls ~/.jj-backup/jj.toml": false,
	} {
		if got := RunsJJ(cmd); got != want {
			t.Errorf("RunsJJ(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestRefusalScanner: a refusal split across chunks is seen; text that is
// not one is not.
func TestRefusalScanner(t *testing.T) {
	t.Parallel()
	var s refusalScanner
	for _, c := range []string{"bash: a.txt: Permiss", "ion den", "ied\n"} {
		s.Write([]byte(c))
	}
	if !s.refused {
		t.Errorf("a refusal split across three chunks was missed")
	}
	var n refusalScanner
	n.Write([]byte("all fine: permission granted, operation permitted\n"))
	if n.refused {
		t.Errorf("ordinary text read as a refusal")
	}
	var x refusalScanner
	x.Write([]byte("ln: failed to create hard link 'h' => 'a': Invalid cross-device link"))
	if !x.refused {
		t.Errorf("Landlock's EXDEV for a link out of the project was missed")
	}
}

func TestHint(t *testing.T) {
	t.Parallel()
	for tools, want := range map[string]string{
		"mcp__planq__jj_init":             "call mcp__planq__jj_init with a one-line description",
		"planq_jj_git_init,planq_jj_init": "call planq_jj_git_init, then planq_jj_init with a one-line description",
		"":                                "declare the change with planq's jj_init tool",
	} {
		var list []string
		if tools != "" {
			list = strings.Split(tools, ",")
		}
		h := Hint("/src/app", list)
		if !strings.Contains(h, want) || !strings.Contains(h, "the project /src/app is read-only until the change is declared") || strings.Contains(h, "\n") {
			t.Errorf("Hint(%q) = %q, want one line saying %q", tools, h, want)
		}
	}
}

// TestNewPlan: the writable places never touch the project, nor a tree
// holding a place code is loaded from; the caches and temp dirs outside
// are in, the home directory itself is not.
func TestNewPlan(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	mk := func(p string) string {
		t.Helper()
		d := filepath.Join(base, p)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		d, _ = filepath.EvalSymlinks(d)
		return d
	}
	root, home, gocache, bin := mk("tmp/proj"), mk("home"), mk("gocache"), mk("cachebin/bin")
	cache, npm, tmp, private := mk("home/.cache"), mk("home/.npm"), mk("tmp"), mk("tmp/planq-sandbox-1")
	inproj := mk("tmp/proj/build-cache")
	env := map[string]string{"HOME": home, "GOCACHE": gocache, "PATH": bin + ":/usr/bin", "TMPDIR": tmp,
		"npm_config_cache": inproj, "XDG_CACHE_HOME": filepath.Dir(bin)}
	pl := NewPlan(Spec{Root: root, Exe: "/opt/planq/bin/planq-hook", Getenv: func(k string) string { return env[k] }})
	if tempWritable(pl, tmp) || !pl.grant(private) || !tempWritable(pl, private) {
		t.Errorf("TMPDIR %s holds the project: want it read-only and a private one beside the project granted; writable %v", tmp, pl.Dirs)
	}
	if pl.grant(inproj) || pl.grant(home) {
		t.Errorf("granted a directory in the project or the home directory: %v", pl.Dirs)
	}
	for _, want := range []string{private, gocache, cache, npm} {
		if !slices.Contains(pl.Dirs, want) {
			t.Errorf("writable %v lacks %s", pl.Dirs, want)
		}
	}
	for _, not := range []string{tmp, root, inproj, home, filepath.Dir(bin), bin} {
		if slices.Contains(pl.Dirs, not) {
			t.Errorf("writable %v holds %s", pl.Dirs, not)
		}
	}
	if !slices.Contains(pl.Code, bin) || !slices.Contains(pl.Code, "/opt/planq/bin") || pl.Home != home || pl.Guarded[0] != root {
		t.Errorf("plan = %+v", pl)
	}
	if runtime.GOOS == "linux" && !slices.Contains(pl.Files, "/dev/null") {
		t.Errorf("device files %v lack /dev/null", pl.Files)
	}

	// A home directory inside the temporary directory (HOME=/tmp/…, as
	// in some containers) keeps its dot files read-only: the temporary
	// directory is not granted, its cache and a private TMPDIR are.
	other, tmp2 := mk("srv/proj"), mk("t2")
	home2, cache2, private2 := mk("t2/home"), mk("t2/home/.cache"), mk("t2/planq-sandbox-2")
	env2 := map[string]string{"HOME": home2, "PATH": "/usr/bin", "TMPDIR": tmp2}
	pl = NewPlan(Spec{Root: other, Getenv: func(k string) string { return env2[k] }})
	if tempWritable(pl, tmp2) {
		t.Errorf("HOME in TMPDIR: TMPDIR writable %v", pl.Dirs)
	}
	pl.grant(private2)
	if slices.Contains(pl.Dirs, tmp2) || slices.Contains(pl.Dirs, home2) || !slices.Contains(pl.Dirs, cache2) || !slices.Contains(pl.Dirs, private2) {
		t.Errorf("HOME in TMPDIR: writable %v, want %s and %s but not %s nor %s", pl.Dirs, cache2, private2, tmp2, home2)
	}

	// An agent host's home (its hooks, the gate's among them, and its
	// permission rules) set inside a temporary directory keeps that
	// directory read-only; so does a host's config file there.
	for _, k := range []string{"CODEX_HOME", "COPILOT_HOME", "GEMINI_CLI_HOME", "OPENCODE_CONFIG", "CLAUDE_CONFIG_DIR"} {
		tmp3 := mk("t3-" + k)
		env3 := map[string]string{"HOME": home, "PATH": "/usr/bin", "TMPDIR": tmp3, k: filepath.Join(tmp3, "host", "config.json")}
		pl = NewPlan(Spec{Root: other, Getenv: func(k string) string { return env3[k] }})
		if slices.Contains(pl.Dirs, tmp3) {
			t.Errorf("%s in TMPDIR: writable %v holds it", k, pl.Dirs)
		}
	}
}

// TestSeatbeltProfile checks the generated macOS profile's order (the last
// matching rule wins in Seatbelt): the project is forbidden after the
// writable places, so a project under a temp dir stays read-only.
func TestSeatbeltProfile(t *testing.T) {
	t.Parallel()
	pl := Plan{
		Guarded: []string{"/private/tmp/proj"},
		Code:    []string{"/usr/local/bin", "/Users/u/go/bin"},
		Home:    "/Users/u",
		Dirs:    []string{"/private/tmp", "/Users/u/.cache", `/Users/u/we"ird\dir`},
		Files:   []string{"/dev/null", "/dev/pts"},
	}
	p := SeatbeltProfile(pl)
	want := `(version 1)
(allow default)
; Where programs load code and settings from: read-only.
(deny file-write*
  (regex "^/Users/u/\\.")
  (subpath "/usr/local/bin")
  (subpath "/Users/u/go/bin"))
; Temporary directories, build caches, devices: writable.
(allow file-write*
  (subpath "/private/tmp")
  (subpath "/Users/u/.cache")
  (subpath "/Users/u/we\"ird\\dir")
  (literal "/dev/null")
  (regex "^/dev/ttys[0-9]+$"))
; The project: read-only until the change is declared.
(deny file-write*
  (subpath "/private/tmp/proj"))
; Directories above it: not renamed.
(deny file-write-unlink
  (literal "/private/tmp")
  (literal "/private"))
; Daemons, applications and processes outside the sandbox: not reachable.
(deny network-outbound (remote unix-socket (path-regex #"^/")))
(deny appleevent-send)
(deny signal)
(allow signal (target same-sandbox))
`
	if p != want {
		t.Errorf("SeatbeltProfile =\n%s\nwant\n%s", p, want)
	}
}

// TestDetect: this machine's enforcement is named, and a sandbox is
// available exactly when one of the kinds that have one is.
func TestDetect(t *testing.T) {
	t.Parallel()
	e := Detect()
	if e.Available() != (e.Kind == KindLandlock || e.Kind == KindSeatbelt) || e.String() == "" {
		t.Errorf("Detect() = %+v (%s)", e, e)
	}
	if !e.Available() && e.Reason == "" {
		t.Errorf("no sandbox, and no reason: %+v", e)
	}
	t.Logf("enforcement here: %s", e)
}

// TestByName: the entry point is named by its bare name only when the
// shell's PATH finds that very file first.
func TestByName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mk := func(sub string) string {
		p := filepath.Join(dir, sub, LeanBinary)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	real, other := mk("bin"), mk("planted")
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	entry := []string{real}
	join := func(dirs ...string) string { return strings.Join(dirs, string(os.PathListSeparator)) }
	for _, c := range []struct {
		name, path string
		want       string
	}{
		{"first on PATH", join(empty, filepath.Dir(real)), LeanBinary},
		{"another file of that name first", join(filepath.Dir(other), filepath.Dir(real)), real},
		{"not on PATH", join(empty), real},
		{"a relative PATH entry first", join(".", filepath.Dir(real)), real},
		{"empty PATH", "", real},
	} {
		if got := ByName(entry, c.path); got[0] != c.want {
			t.Errorf("%s: ByName = %q, want %q", c.name, got, c.want)
		}
	}
	if got := ByName([]string{real, "sandbox"}, filepath.Dir(real)); !slices.Equal(got, []string{LeanBinary, "sandbox"}) {
		t.Errorf("ByName kept the words after the program? %q", got)
	}
}
