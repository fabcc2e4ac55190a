package opencode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/testenv"
)

// stubEnv names the directory of a stub hook: when it is set, the test
// binary is not a test but the hook program the plugin runs (TestMain).
const stubEnv = "PLANQ_OPENCODE_STUB_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(stubEnv); dir != "" {
		os.Exit(stubMain(dir, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	testenv.Main(m) // the planq binaries the tests drive are built once
}

// stubRule is one canned answer of the stub hook: the first rule whose
// Event matches and whose Match (if any) occurs in the stdin answers.
type stubRule struct {
	Event  string `json:"event"`
	Match  string `json:"match,omitempty"`
	Reply  string `json:"reply,omitempty"`  // written to stdout as it is
	Stderr string `json:"stderr,omitempty"` // written to stderr
	Exit   int    `json:"exit,omitempty"`
	Block  bool   `json:"block,omitempty"` // hang, as a stuck hook would
	Once   bool   `json:"once,omitempty"`  // answer only the first matching call
}

// stubCall is one recorded run of the stub hook.
type stubCall struct {
	Argv  []string          `json:"argv"`
	Env   map[string]string `json:"env"`
	Event string            `json:"event"`
	Stdin json.RawMessage   `json:"stdin"`
}

// stubMain records the call in dir/calls.jsonl and answers by dir/rules.json.
func stubMain(dir string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	event := ""
	if len(args) > 0 {
		event = args[0]
	}
	if event == "hook" && len(args) > 1 {
		event = args[1]
	}
	in, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "stub: read stdin:", err)
		return 1
	}
	if !json.Valid(in) {
		in, _ = json.Marshal(string(in))
	}
	call := stubCall{Argv: append([]string{filepath.Base(os.Args[0])}, args...), Event: event, Stdin: in,
		Env: map[string]string{"PLANQ_HOST": os.Getenv("PLANQ_HOST"), "PLANQ_PROJECT_DIR": os.Getenv("PLANQ_PROJECT_DIR")}}
	line, _ := json.Marshal(call)
	f, err := os.OpenFile(filepath.Join(dir, "calls.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(stderr, "stub:", err)
		return 1
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(stderr, "stub:", err)
		return 1
	}
	var rules []stubRule
	if b, err := os.ReadFile(filepath.Join(dir, "rules.json")); err == nil {
		if err := json.Unmarshal(b, &rules); err != nil {
			fmt.Fprintln(stderr, "stub: rules.json:", err)
			return 1
		}
	}
	for i, r := range rules {
		if r.Event != event || (r.Match != "" && !bytes.Contains(in, []byte(r.Match))) {
			continue
		}
		if r.Once {
			used := filepath.Join(dir, fmt.Sprintf("used-%d", i))
			if _, err := os.Stat(used); err == nil {
				continue
			}
			if err := os.WriteFile(used, nil, 0o600); err != nil {
				fmt.Fprintln(stderr, "stub:", err)
				return 1
			}
		}
		if r.Block {
			time.Sleep(time.Hour) // a hung hook: the plugin's timeout kills it
		}
		io.WriteString(stdout, r.Reply)
		io.WriteString(stderr, r.Stderr)
		return r.Exit
	}
	return 0
}

// stub is a stub hook directory for one test.
type stub struct {
	dir string
	bin string // the test binary, which acts as the stub under stubEnv
}

func newStub(t *testing.T, rules ...stubRule) *stub {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := &stub{dir: t.TempDir(), bin: bin}
	b, err := json.Marshal(rules)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "rules.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// env is the environment that turns the test binary into this stub.
func (s *stub) env() string { return stubEnv + "=" + s.dir }

// calls returns the calls recorded so far, of one event or ("") all.
func (s *stub) calls(t *testing.T, event string) []stubCall {
	t.Helper()
	f, err := os.Open(filepath.Join(s.dir, "calls.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []stubCall
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var c stubCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("calls.jsonl: %v", err)
		}
		if event == "" || c.Event == event {
			out = append(out, c)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (c stubCall) String() string {
	s := string(c.Stdin)
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return strings.Join(c.Argv, " ") + " " + s
}
