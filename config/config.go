// Package config reads and writes a code repository's planq settings, kept in
// .planq/config.yaml at the repository root (Load, Set), and holds the two
// rules every part of planq that keeps records shares: where PLANQ_HOME is
// (StateHome) and what makes a valid project or agent name (ValidName,
// SanitizeName).
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/planq-dev/planq/internal/atomicfile"
)

// File is the settings file's path relative to the repository root.
const File = ".planq/config.yaml"

// Gate modes.
const (
	ModeStrict = "strict" // deny modifying calls while the gate is locked
	ModeWarn   = "warn"   // allow them, with a warning
	ModeOff    = "off"    // no gate
)

// Unknown-command policies.
const (
	UnknownStrict     = "strict"     // an unknown command counts as modifying
	UnknownPermissive = "permissive" // an unknown command counts as read-only
)

// Git policies for history-rewriting git commands inside a jj repo.
const (
	GitDeny  = "deny"
	GitAllow = "allow"
)

// What the gate's hook does when it fails (a panic, an internal error, bad
// hook input, a deadline) on a call that is not known to be read-only.
const (
	OnErrorDeny  = "deny"
	OnErrorAllow = "allow"
)

// Whether the gate runs locked shell commands in the OS sandbox where this
// machine and the host allow it (gate.sandbox). Off keeps the parser-only
// gate, as PLANQ_SANDBOX=off in the hooks' environment does.
const (
	SandboxOn  = "on"
	SandboxOff = "off"
)

// TestsDefault stands in gate.tests for the default entries, so a project
// can add to them: tests: [default, make e2e].
const TestsDefault = "default"

// DefaultTests are the test entry points the gate treats as read-only
// investigations when gate.tests is not set: they run the project's own
// tests, which write only caches and build directories. Their writing
// options (snapshot updates, coverage and report files) still modify.
var DefaultTests = []string{
	"go test", "gotestsum", "cargo test", "cargo nextest", "cargo bench", "cargo check", "cargo clippy",
	"npm test", "yarn test", "pnpm test", "bun test", "deno test", "pytest", "python -m pytest", "python -m unittest",
	"jest", "vitest", "mocha", "ava", "tap", "karma", "playwright test", "make test", "make check",
	"ctest", "phpunit", "rspec", "bats", "node --test",
}

// Config is the whole of .planq/config.yaml.
type Config struct {
	Project string `yaml:"project,omitempty"` // state repo name; default: see package project (the directory's name plus a hash of its path)
	Agent   string `yaml:"agent,omitempty"`   // current agent; PLANQ_AGENT overrides
	State   State  `yaml:"state,omitempty"`
	Gate    Gate   `yaml:"gate,omitempty"`
}

// State holds the state repo's settings.
type State struct {
	Remote string `yaml:"remote,omitempty"` // URL or local path of the state repo's remote
	// Sessions says whether the project's agent sessions (records and
	// redacted transcripts) travel with the state remote: shared or
	// private; unset is private, and `planq state remote` asks.
	Sessions string `yaml:"sessions,omitempty"`
}

// Values of state.sessions.
const (
	SessionsShared  = "shared"
	SessionsPrivate = "private"
)

// Gate holds the gate's settings.
type Gate struct {
	Mode     string   `yaml:"mode,omitempty"`      // strict | warn | off
	Unknown  string   `yaml:"unknown,omitempty"`   // strict | permissive
	Git      string   `yaml:"git,omitempty"`       // deny | allow
	Allow    []string `yaml:"allow,omitempty"`     // extra command names that only read
	Deny     []string `yaml:"deny,omitempty"`      // extra command names that modify
	MCPAllow []string `yaml:"mcp_allow,omitempty"` // MCP tool name globs that only read
	MCPDeny  []string `yaml:"mcp_deny,omitempty"`  // MCP tool name globs that modify
	// Tests are the test entry points treated as read-only ("go test",
	// "make check"); nil means DefaultTests, and the entry "default"
	// stands for them.
	Tests   []string `yaml:"tests,omitempty"`
	OnError string   `yaml:"on_error,omitempty"` // deny | allow
	Sandbox string   `yaml:"sandbox,omitempty"`  // on | off: locked shell commands in the OS sandbox
}

// TestEntries returns gate.tests with "default" expanded, or the defaults
// when it is not set.
func (g Gate) TestEntries() []string {
	if g.Tests == nil {
		return slices.Clone(DefaultTests)
	}
	var out []string
	for _, t := range g.Tests {
		if strings.TrimSpace(t) == TestsDefault {
			out = append(out, DefaultTests...)
			continue
		}
		out = append(out, strings.Join(strings.Fields(t), " "))
	}
	return out
}

// Default returns the settings used when the file or a key is missing.
func Default() Config {
	return Config{Gate: Gate{Mode: ModeStrict, Unknown: UnknownStrict, Git: GitDeny, OnError: OnErrorDeny, Sandbox: SandboxOn}}
}

// Path returns the settings file's path for the repository at root.
func Path(root string) string { return filepath.Join(root, File) }

// Load reads root's settings; a missing file yields the defaults and an
// invalid one an error naming the offending key.
func Load(root string) (Config, error) {
	data, err := os.ReadFile(Path(root))
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read %s: %w", File, err)
	}
	return Parse(data)
}

// Parse decodes settings, rejecting unknown keys and invalid values, and
// fills in defaults.
func Parse(data []byte) (Config, error) {
	var c Config
	if len(bytes.TrimSpace(data)) > 0 {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&c); err != nil {
			return Config{}, fmt.Errorf("%s: %s", File, yamlMessage(err))
		}
	}
	def := Default()
	if c.Gate.Mode == "" {
		c.Gate.Mode = def.Gate.Mode
	}
	if c.Gate.Unknown == "" {
		c.Gate.Unknown = def.Gate.Unknown
	}
	if c.Gate.Git == "" {
		c.Gate.Git = def.Gate.Git
	}
	if c.Gate.OnError == "" {
		c.Gate.OnError = def.Gate.OnError
	}
	if c.Gate.Sandbox == "" {
		c.Gate.Sandbox = def.Gate.Sandbox
	}
	return c, c.Validate()
}

// Validate reports the first invalid value, naming its key.
func (c Config) Validate() error {
	checks := []struct {
		key, val string
		allowed  []string
	}{
		{"gate.mode", c.Gate.Mode, []string{ModeStrict, ModeWarn, ModeOff}},
		{"gate.unknown", c.Gate.Unknown, []string{UnknownStrict, UnknownPermissive}},
		{"gate.git", c.Gate.Git, []string{GitDeny, GitAllow}},
		{"gate.on_error", c.Gate.OnError, []string{OnErrorDeny, OnErrorAllow}},
		{"gate.sandbox", c.Gate.Sandbox, []string{SandboxOn, SandboxOff}},
	}
	if c.State.Sessions != "" {
		checks = append(checks, struct {
			key, val string
			allowed  []string
		}{"state.sessions", c.State.Sessions, []string{SessionsShared, SessionsPrivate}})
	}
	for _, ch := range checks {
		if !slices.Contains(ch.allowed, ch.val) {
			return fmt.Errorf("%s: %s: %q is not one of %s", File, ch.key, ch.val, strings.Join(ch.allowed, ", "))
		}
	}
	if c.Project != "" {
		if err := ValidName(c.Project); err != nil {
			return fmt.Errorf("%s: project: %w", File, err)
		}
	}
	if c.Agent != "" {
		if err := ValidName(c.Agent); err != nil {
			return fmt.Errorf("%s: agent: %w", File, err)
		}
	}
	for _, k := range []struct {
		key  string
		vals []string
	}{{"gate.allow", c.Gate.Allow}, {"gate.deny", c.Gate.Deny}, {"gate.mcp_allow", c.Gate.MCPAllow}, {"gate.mcp_deny", c.Gate.MCPDeny}, {"gate.tests", c.Gate.Tests}} {
		for _, v := range k.vals {
			if strings.TrimSpace(v) == "" {
				return fmt.Errorf("%s: %s: empty entry", File, k.key)
			}
		}
	}
	return nil
}

// ValidName checks that s is safe as a git ref component and a file name:
// 1 to 64 characters of letters, digits, '.', '_' and '-', not starting with
// '-' or '.', and not ending in ".lock".
func ValidName(s string) error {
	switch {
	case s == "":
		return errors.New("name is empty")
	case len(s) > 64:
		return fmt.Errorf("name is %d characters long; use at most 64", len(s))
	case s[0] == '-' || s[0] == '.':
		return fmt.Errorf("name %q must start with a letter or digit", s)
	case strings.HasSuffix(s, ".lock"):
		return fmt.Errorf("name %q must not end in .lock", s)
	case strings.Contains(s, ".."):
		return fmt.Errorf("name %q must not contain \"..\"", s)
	}
	for _, r := range s {
		ok := r == '-' || r == '_' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return fmt.Errorf("name %q has %q; use only letters, digits, '.', '_' and '-'", s, r)
		}
	}
	return nil
}

// Set writes one scalar key (a dotted path such as "state.remote") into
// root's settings file, keeping every other key and comment, atomically.
func Set(root, key, value string) error {
	if _, ok := settable[key]; !ok {
		return fmt.Errorf("config: unknown key %q (settable: %s)", key, strings.Join(settableKeys(), ", "))
	}
	path := Path(root)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", File, err)
	}
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s: %s", File, yamlMessage(err))
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	node := doc.Content[0]
	parts := strings.Split(key, ".")
	for i, p := range parts {
		if node.Kind != yaml.MappingNode {
			return fmt.Errorf("%s: %s is not a mapping", File, strings.Join(parts[:i], "."))
		}
		last := i == len(parts)-1
		var found *yaml.Node
		for j := 0; j+1 < len(node.Content); j += 2 {
			if node.Content[j].Value == p {
				found = node.Content[j+1]
				break
			}
		}
		if found == nil {
			found = &yaml.Node{Kind: yaml.MappingNode}
			if last {
				found = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str"}
			}
			node.Content = append(node.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: p}, found)
		}
		if last {
			found.Kind, found.Tag, found.Value, found.Content = yaml.ScalarNode, "!!str", value, nil
		}
		node = found
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("encode %s: %w", File, err)
	}
	if _, err := Parse(buf.Bytes()); err != nil {
		return err
	}
	return atomicfile.Write(path, buf.Bytes(), 0o644)
}

var settable = map[string]bool{
	"project": true, "agent": true, "state.remote": true, "state.sessions": true,
	"gate.mode": true, "gate.unknown": true, "gate.git": true, "gate.on_error": true, "gate.sandbox": true,
}

func settableKeys() []string {
	keys := make([]string, 0, len(settable))
	for k := range settable {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// yamlMessage shortens yaml.v3's errors to their first line without the
// "yaml: " prefix.
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

// StateHome returns where planq keeps agent state and session records:
// $PLANQ_HOME, else ~/.planq, as an absolute path.
func StateHome(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	home := getenv("PLANQ_HOME")
	if home == "" {
		h := getenv("HOME")
		if h == "" {
			var err error
			if h, err = os.UserHomeDir(); err != nil {
				return "", fmt.Errorf("PLANQ_HOME is not set and the home directory is unknown: %w", err)
			}
		}
		home = filepath.Join(h, ".planq")
	}
	return filepath.Abs(home)
}

// SanitizeName turns a directory name into a valid project name: characters
// other than letters, digits, '.', '_' and '-' become '-', leading and
// trailing '-' and '.' go, at most 64 characters, never empty.
func SanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		ok := r == '-' || r == '_' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			r = '-'
		}
		b.WriteRune(r)
	}
	out := strings.TrimLeft(b.String(), "-.")
	for strings.Contains(out, "..") {
		out = strings.ReplaceAll(out, "..", ".")
	}
	if len(out) > 64 {
		out = out[:64]
	}
	out = strings.TrimSuffix(out, ".lock")
	out = strings.TrimRight(out, "-.")
	if out == "" {
		return "project"
	}
	return out
}
