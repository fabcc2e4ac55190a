package changelog

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func FuzzParse(f *testing.F) {
	f.Add([]byte(handEdited))
	f.Add([]byte("---\nid: pq-aaaaaaaa\ntimestamp: 2026-01-20T10:00:00Z\nagent: a\ntype: idea\n---\nbody\n---\ntype: end\n"))
	f.Add([]byte("```\n---\nid: pq-12345678\n---\n"))
	f.Add([]byte("---\nagent: \"\\u00e9\"\ntype: plan\ntimestamp: 2026-01-20T10:00:00Z\nalternatives: [a, \"b,c\"]\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, problems := ParseBytes(data)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, p := range problems {
			if p.Line < 1 || p.Line > lines || p.Message == "" || strings.Contains(p.Message, "\n") {
				t.Fatalf("bad problem %+v (file has %d lines)", p, lines)
			}
		}
		for _, e := range es {
			if e.Line < 1 || e.Line > lines || !ValidID(e.ID) || !e.Type.Valid() || !e.Status.Valid() {
				t.Fatalf("bad entry %+v", e)
			}
			// Whatever parsed, once written by Append, reads back the same.
			var buf bytes.Buffer
			w, err := Append(&buf, e)
			if err != nil {
				continue // hand-written content Append refuses (e.g. a header-like body)
			}
			back, p := ParseBytes(buf.Bytes())
			if len(back) != 1 || len(p) != 0 || !same(back[0], w) {
				t.Fatalf("round trip of %+v gave %+v %v\n%s", w, back, p, buf.Bytes())
			}
		}
	})
}

// FuzzFrontMatter checks that the fast front-matter path agrees with yaml.v3
// whenever it accepts the input.
func FuzzFrontMatter(f *testing.F) {
	f.Add("id: pq-aaaaaaaa\ntimestamp: 2026-01-20T10:00:00Z\nagent: a\ntype: plan")
	f.Add("agent: true\nrationale: a#b c: d\nalternatives: [x, \"y\\\"z\", 1.5]")
	f.Add("decision: \"\\u00e9 \\t\"\nto: ~\nnext_steps: []")
	f.Fuzz(func(t *testing.T, s string) {
		var lines [][]byte
		for _, l := range strings.Split(s, "\n") {
			lines = append(lines, []byte(l))
		}
		var fast rawEntry
		if fastFrontMatter(lines, &fast, map[string]string{}) != nil {
			return
		}
		var slow rawEntry
		if err := yamlFrontMatter(lines, &slow); err != nil {
			if strings.TrimSpace(s) == "" || strings.Contains(err.Error(), "empty") {
				return
			}
			t.Fatalf("fast path accepted what yaml.v3 rejects (%v):\n%s", err, s)
		}
		for _, l := range []*[]string{&fast.DependsOn, &fast.Alternatives, &fast.NextSteps, &slow.DependsOn, &slow.Alternatives, &slow.NextSteps} {
			if len(*l) == 0 {
				*l = nil
			}
		}
		if !equalRaw(fast, slow) {
			t.Fatalf("fast %+v\nyaml %+v\ninput:\n%s", fast, slow, s)
		}
	})
}

func equalRaw(a, b rawEntry) bool {
	eq := func(x, y []string) bool {
		return strings.Join(x, "\x00") == strings.Join(y, "\x00") && len(x) == len(y)
	}
	if a.hasTS {
		t, err := time.Parse(time.RFC3339Nano, b.Timestamp)
		if err != nil || !t.Equal(a.ts) {
			return false
		}
		a.Timestamp = b.Timestamp
	}
	return a.ID == b.ID && a.Timestamp == b.Timestamp && a.Agent == b.Agent && a.Type == b.Type &&
		a.Parent == b.Parent && a.Decision == b.Decision && a.Rationale == b.Rationale && a.To == b.To &&
		a.Status == b.Status && eq(a.DependsOn, b.DependsOn) && eq(a.Alternatives, b.Alternatives) && eq(a.NextSteps, b.NextSteps)
}
