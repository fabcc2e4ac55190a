package redact

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// fakeToken makes a random-looking token of n letters and digits after
// prefix, as real keys are (gitleaks checks their entropy).
func fakeToken(prefix string, n int) string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte(prefix)
	r := rand.New(rand.NewPCG(uint64(len(prefix)), uint64(n)))
	for range n {
		b = append(b, chars[r.IntN(len(chars))])
	}
	return string(b)
}

func jsonLine(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func toolResult(t *testing.T, id, content string) string {
	return jsonLine(t, map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}}}})
}

func toolUse(t *testing.T, id, name string, input map[string]any) string {
	return jsonLine(t, map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{
		map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}})
}

func TestSecretsAreRedactedAndLinesStayJSON(t *testing.T) {
	t.Parallel()
	ghp := fakeToken("ghp_", 36)
	aws := "AKIA" + strings.ToUpper(fakeToken("", 16))
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + fakeToken("MIIEow", 58) + "\n" + fakeToken("", 64) + "\n" + fakeToken("", 40) + "=\n-----END RSA PRIVATE KEY-----"
	cases := []struct {
		name, line, secret, rule string
	}{
		{"github token in a result", toolResult(t, "toolu_1", "token: "+ghp+" // gitleaks:allow"), ghp, "github-pat"},
		{"aws key in prose", jsonLine(t, map[string]any{"type": "assistant", "text": "use aws_access_key_id = " + aws}), aws, "aws-access-token"},
		{"private key with newlines", toolResult(t, "toolu_2", "key.pem:\n"+pem+"\n"), fakeToken("MIIEow", 58), "private-key"},
		{"password in a URL", toolUse(t, "toolu_3", "Bash", map[string]any{"command": "psql postgres://app:Hunter2Secret@db.example.com/prod"}), "Hunter2Secret", RuleURLPassword},
	}
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		out, found := r.Lines([]byte(c.line), 7)
		s := string(out)
		if strings.Contains(s, c.secret) {
			t.Errorf("%s: the secret is still there: %s", c.name, s)
		}
		if !strings.Contains(s, Marker+c.rule+"]") {
			t.Errorf("%s: no marker for %s: %s", c.name, c.rule, s)
		}
		if !json.Valid([]byte(strings.TrimSuffix(s, "\n"))) || !strings.HasSuffix(s, "\n") {
			t.Errorf("%s: not a JSON line any more: %q", c.name, s)
		}
		if len(found) == 0 || found[0].Line != 7 || found[0].Rule != c.rule {
			t.Errorf("%s: findings %+v, want line 7 rule %s", c.name, found, c.rule)
		}
	}
}

func TestDotenvValuesAreRedactedFromTheCallsThatReadThem(t *testing.T) {
	t.Parallel()
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	lines := toolUse(t, "toolu_env", "Read", map[string]any{"file_path": "/work/app/.env"}) +
		toolResult(t, "toolu_env", "     1\u2192DATABASE_PASSWORD=plainwords-not-a-key\n     2\u2192export FEATURE_FLAG=on\n     3\u2192# comment\n") +
		toolUse(t, "toolu_sh", "Bash", map[string]any{"command": "cat config/.env.local"}) +
		toolResult(t, "toolu_sh", "SESSION_SECRET=also-plain\n") +
		toolResult(t, "toolu_other", "X=not from a dotenv file\n")
	out, found := r.Lines([]byte(lines), 1)
	s := string(out)
	for _, v := range []string{"plainwords-not-a-key", "also-plain", "=on"} {
		if strings.Contains(s, v) {
			t.Errorf(".env value %q left in:\n%s", v, s)
		}
	}
	for _, keep := range []string{"DATABASE_PASSWORD=", "# comment", "X=not from a dotenv file"} {
		if !strings.Contains(s, keep) {
			t.Errorf("%q was redacted too:\n%s", keep, s)
		}
	}
	rules := map[int64]string{}
	for _, f := range found {
		rules[f.Line] = f.Rule
	}
	if rules[2] != RuleDotenv || rules[4] != RuleDotenv || rules[5] != "" {
		t.Errorf("findings %+v, want lines 2 and 4 (the .env results) only", found)
	}
}

func TestCleanLinesAreUnchanged(t *testing.T) {
	t.Parallel()
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	in := toolResult(t, "toolu_1", "package main\n\nfunc main() { println(\"token counts and passwords are words\") }\n") +
		jsonLine(t, map[string]any{"usage": map[string]any{"input_tokens": 12, "output_tokens": 40}}) +
		"not json at all\n"
	out, found := r.Lines([]byte(in), 1)
	if string(out) != in || len(found) != 0 {
		t.Fatalf("clean lines changed: %q, %+v", out, found)
	}
}

func TestALineThatCannotBeRedactedAloneIsLeftOut(t *testing.T) {
	t.Parallel()
	// A secret that spans two JSON strings: no string holds it whole, and
	// replacing it in the raw line would break the JSON.
	body := []byte(`{"a":"abc","b":"def"}`)
	if out, _ := redactJSON(body, []secret{{value: `abc","b":"def`, rule: "x"}}, false); out != nil {
		t.Fatalf("redactJSON = %s, want nil (cannot redact alone)", out)
	}
	// The line is then replaced whole, by a JSON note that says why.
	if w := wholeLine(); !json.Valid(w) || !strings.Contains(string(w), RuleWholeLine) {
		t.Fatalf("wholeLine = %s", w)
	}
	// A secret inside one string is replaced there, and the rest is kept.
	out, rules := redactJSON([]byte(`{"a":"key abc-def here","n":1}`), []secret{{value: "abc-def", rule: "x"}}, false)
	if string(out) != `{"a":"key [REDACTED by planq: x] here","n":1}` || len(rules) != 1 {
		t.Fatalf("redactJSON = %s %v", out, rules)
	}
}
