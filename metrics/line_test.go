package metrics

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// The hand-written encoding of a record is encoding/json's, byte for byte,
// for records of every shape and strings of every kind of character.
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"", "a", "gate", "é", "日本", "\x00", "\x1f", "\x7f", "\b\f\n\r\t", `"`, `\`, "<>&", "\u2028", "\u2029",
		"\xff", "\xe2\x80", "\U0001F600", "pq-0123", " ", "/tmp/a b/c.go"}
	str := func() string {
		var sb strings.Builder
		for range rng.IntN(4) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return sb.String()
	}
	strs := func() []string {
		var out []string
		for range rng.IntN(3) {
			out = append(out, str())
		}
		return out
	}
	times := []time.Time{time.Date(2026, 11, 28, 15, 4, 5, 0, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC), {}}
	for i := range 5000 {
		r := Record{Time: times[rng.IntN(len(times))], Kind: str(), Session: str(), Host: str(), Tool: str(), Rule: str(), Verdict: str(),
			Declared: rng.IntN(2) == 0, Err: rng.IntN(2) == 0, Where: str(), Query: str(), Text: str(), Files: strs(), Count: rng.IntN(3) - 1}
		for range rng.IntN(3) {
			r.Entries = append(r.Entries, Entry{ID: str(), Kind: str(), Title: str()})
		}
		if rng.IntN(4) == 0 {
			r.Files = []string{} // empty, not nil: omitted all the same
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		got, err := r.appendJSON(nil)
		if err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("record %d: appendJSON = %q, %v\nencoding/json = %q", i, got, err, want.Bytes())
		}
	}
	if _, err := (Record{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}).appendJSON(nil); err == nil {
		t.Error("a time encoding/json refuses is encoded")
	}
}
