// Package redact takes the secrets out of transcript lines before planq
// shares them with the state remote: API keys, tokens and private keys as
// gitleaks' default rules find them (github.com/zricethezav/gitleaks/v8,
// its detect package), passwords in URLs, and the values of the .env files
// an agent read. Each secret is replaced by a marker that names the rule,
// [REDACTED by planq: <rule>], so the shared copy says where it was
// redacted; the machine's own copy is never changed.
//
// Lines are JSON (a host's transcript): secrets are replaced inside the
// JSON strings that hold them, decoded and encoded again, so a redacted
// line is still the JSON it was. A line that cannot be redacted that way is
// replaced whole by a note saying so.
//
// The package links gitleaks and its rule set (a few MB, 100 ms to compile
// the rules); only the planq binary's sharing commands import it, never
// planq-hook or planq-sandbox.
package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// Marker is what replaces a secret: Marker + rule + "]".
const Marker = "[REDACTED by planq: "

// Rules of planq's own, beside gitleaks' rule ids.
const (
	RuleURLPassword = "password-in-url"
	RuleDotenv      = "dotenv-value"
	RuleWholeLine   = "unredactable-line"
)

// Finding is one redaction: the line (numbered as the caller numbers its
// input) and the rule that found the secret.
type Finding struct {
	Line int64  `json:"line"`
	Rule string `json:"rule"`
}

var (
	detectorOnce sync.Once
	detector     *detect.Detector
	detectorErr  error
)

// gitleaks compiles gitleaks' default rules once per process.
func gitleaks() (*detect.Detector, error) {
	detectorOnce.Do(func() {
		d, err := detect.NewDetectorDefaultConfig()
		if err != nil {
			detectorErr = fmt.Errorf("redact: load gitleaks' rules: %w", err)
			return
		}
		d.IgnoreGitleaksAllow = true // a "gitleaks:allow" in a transcript is no reason to share a secret
		detector = d
	})
	return detector, detectorErr
}

// Redactor redacts the lines of one transcript, in order: it remembers
// which tool calls read a .env file, so their results lose their values.
// It is not safe for concurrent use; each Lines call uses the CPUs itself.
type Redactor struct {
	d      *detect.Detector
	envIDs map[string]bool
}

// New returns a Redactor for one transcript.
func New() (*Redactor, error) {
	d, err := gitleaks()
	if err != nil {
		return nil, err
	}
	return &Redactor{d: d, envIDs: map[string]bool{}}, nil
}

var (
	// urlPassword finds user:password@ in a URL; the password is group 2.
	urlPassword = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]{0,20}://([^\s:/@"'\\<>]{1,128}):([^\s/@"'\\<>]{1,256})@`)
	// envRef finds a .env file named in a line (a path, a shell word).
	envRef = regexp.MustCompile(`(?:^|[\s"'/=:(])\.env(?:\.[A-Za-z0-9_-]+)?(?:$|[\s"'\\),;|>&])`)
	// callID finds the ids that tie a tool call to its result.
	callID = regexp.MustCompile(`"(?:id|tool_use_id|call_id|callID|callId|toolCallId|tool_call_id)"\s*:\s*"([^"\\]{1,200})"`)
	// dotenvLine is a KEY=value line of a .env file, as a tool showed it
	// (perhaps after a line number: Claude Code's Read shows "  12→KEY=v").
	dotenvLine = regexp.MustCompile(`(?m)^([ \t]*(?:\d+[ \t]*(?:→|\||:|\t)[ \t]*)?(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_.-]*[ \t]*=[ \t]*)([^\s#][^\n\r]*?)[ \t]*\r?$`)
)

// secret is one thing to redact in a line.
type secret struct {
	value, rule string
}

// Lines redacts data, complete lines each ending in a newline, and returns
// the redacted lines and what was redacted (line numbers from first). Lines
// with nothing to redact are returned as they were, byte for byte.
func (r *Redactor) Lines(data []byte, first int64) ([]byte, []Finding) {
	lines := bytes.SplitAfter(data, []byte{'\n'})
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	// Which lines hold a .env file's content: in order, as a tool call
	// that reads one comes before its result.
	env := make([]bool, len(lines))
	for i, l := range lines {
		env[i] = r.readsEnv(l)
	}
	out := make([][]byte, len(lines))
	found := make([][]string, len(lines))
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), max(1, len(lines)/64))
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(lines); i += workers {
				out[i], found[i] = r.line(lines[i], env[i])
			}
		}()
	}
	wg.Wait()
	var findings []Finding
	for i, rules := range found {
		for _, rule := range rules {
			findings = append(findings, Finding{Line: first + int64(i), Rule: rule})
		}
	}
	if len(findings) == 0 {
		return data, nil
	}
	return bytes.Join(out, nil), findings
}

// readsEnv reports whether line holds a .env file's content: it names one
// (a tool call reading it, a result that says which file it shows), or is
// the result of a call that did. The calls' ids are remembered.
func (r *Redactor) readsEnv(line []byte) bool {
	if envRef.Match(line) {
		for _, m := range callID.FindAllSubmatch(line, -1) {
			r.envIDs[string(m[1])] = true
		}
		return true
	}
	for id := range r.envIDs {
		if bytes.Contains(line, []byte(`"`+id+`"`)) {
			return true
		}
	}
	return false
}

// line redacts one line; rules lists what it redacted.
func (r *Redactor) line(line []byte, env bool) ([]byte, []string) {
	var secrets []secret
	for _, f := range r.d.DetectBytes(line) {
		v := f.Secret
		if v == "" {
			v = f.Match
		}
		if v != "" && !strings.HasPrefix(v, Marker) {
			secrets = append(secrets, secret{v, f.RuleID})
		}
	}
	for _, m := range urlPassword.FindAllSubmatch(line, -1) {
		if v := string(m[2]); !strings.HasPrefix(v, Marker) {
			secrets = append(secrets, secret{v, RuleURLPassword})
		}
	}
	if len(secrets) == 0 && !env {
		return line, nil
	}
	body, nl := bytes.CutSuffix(line, []byte{'\n'})
	var rules []string
	var out []byte
	if json.Valid(body) {
		out, rules = redactJSON(body, secrets, env)
	} else {
		out, rules = redactRaw(body, secrets)
	}
	if out == nil {
		out, rules = wholeLine(), []string{RuleWholeLine}
	}
	if nl {
		out = append(out, '\n')
	}
	return out, rules
}

func marker(rule string) string { return Marker + rule + "]" }

// redactRaw replaces each secret in a line that is not JSON.
func redactRaw(body []byte, secrets []secret) ([]byte, []string) {
	s := string(body)
	var rules []string
	for _, sc := range secrets {
		if strings.Contains(s, sc.value) {
			s = strings.ReplaceAll(s, sc.value, marker(sc.rule))
			rules = append(rules, sc.rule)
		}
	}
	return []byte(s), rules
}

// redactJSON replaces the secrets inside the JSON strings of a line, and
// with env the values of KEY=value lines in them. A secret found in the raw
// line but in no string (it spans strings, or is not in one) is replaced
// in the raw line when the line stays JSON; nil when it would not.
func redactJSON(body []byte, secrets []secret, env bool) ([]byte, []string) {
	type want struct {
		secret
		forms []string // as it may read in a decoded string
		done  bool
	}
	wants := make([]*want, len(secrets))
	for i, sc := range secrets {
		wants[i] = &want{secret: sc, forms: decodedForms(sc.value)}
	}
	var rules []string
	var out bytes.Buffer
	rest := body
	for {
		start, end, ok := nextString(rest)
		if !ok {
			out.Write(rest)
			break
		}
		out.Write(rest[:start])
		lit := rest[start:end]
		rest = rest[end:]
		var s string
		if json.Unmarshal(lit, &s) != nil {
			out.Write(lit)
			continue
		}
		changed := false
		for _, w := range wants {
			for _, f := range w.forms {
				if f != "" && strings.Contains(s, f) {
					s = strings.ReplaceAll(s, f, marker(w.rule))
					changed = true
					if !w.done {
						w.done = true
						rules = append(rules, w.rule)
					}
				}
			}
		}
		if env {
			n := 0
			s = dotenvLine.ReplaceAllStringFunc(s, func(m string) string {
				sub := dotenvLine.FindStringSubmatch(m)
				if strings.HasPrefix(sub[2], Marker) {
					return m
				}
				n++
				return sub[1] + marker(RuleDotenv)
			})
			if n > 0 {
				changed = true
				rules = append(rules, RuleDotenv)
			}
		}
		if !changed {
			out.Write(lit)
			continue
		}
		out.Write(encodeString(s))
	}
	res := out.Bytes()
	for _, w := range wants {
		if w.done {
			continue
		}
		if !bytes.Contains(res, []byte(w.value)) {
			continue // gone with another secret's marker
		}
		next := bytes.ReplaceAll(res, []byte(w.value), []byte(marker(w.rule)))
		if spansStrings(w.value) || !json.Valid(next) {
			return nil, nil
		}
		res = next
		rules = append(rules, w.rule)
	}
	return res, rules
}

// spansStrings reports whether a secret found in raw JSON crosses a
// string's end (holds a quote that is not escaped): replacing it would
// change the line's structure.
func spansStrings(v string) bool {
	return strings.Contains(strings.ReplaceAll(strings.ReplaceAll(v, `\\`, ""), `\"`, ""), `"`)
}

// decodedForms returns how a secret found in raw JSON reads once its
// string is decoded: itself, and its unescaped form when it holds escapes.
func decodedForms(v string) []string {
	forms := []string{v}
	if !strings.Contains(v, `\`) {
		return forms
	}
	for _, try := range []string{v, strings.TrimSuffix(v, `\`)} {
		var s string
		if json.Unmarshal([]byte(`"`+try+`"`), &s) == nil {
			return append(forms, s)
		}
	}
	return forms
}

// nextString finds the next JSON string literal in b: b[start:end] is it,
// quotes included.
func nextString(b []byte) (start, end int, ok bool) {
	start = bytes.IndexByte(b, '"')
	if start < 0 {
		return 0, 0, false
	}
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return start, i + 1, true
		}
	}
	return 0, 0, false
}

// encodeString encodes s as a JSON string, leaving <, > and & as they are.
func encodeString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// wholeLine is what replaces a line whose secrets could not be taken out
// alone.
func wholeLine() []byte {
	return []byte(`{"type":"planq-redacted","note":"` + marker(RuleWholeLine) + ` this line held a secret planq could not take out alone, so the whole line was left out of the shared copy"}`)
}
