package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/planq-dev/planq/internal/text"
)

// ExactFields reads the members of a JSON object the way the agent host
// does, exactly: keys match only in their exact case. It returns the values
// of the wanted keys and fails, naming the key, when a key appears twice or
// when a key differs from a wanted one only in case (Go's encoding/json
// would take "Command" for "command"; the host would not), so that the gate
// never judges a different value from the one the tool runs.
func ExactFields(raw []byte, want ...string) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not a JSON object: %s", text.OneLine(err.Error()))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	got := map[string]json.RawMessage{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not a JSON object: %s", text.OneLine(err.Error()))
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("not a JSON object")
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, fmt.Errorf("bad value for %q: %s", key, text.OneLine(err.Error()))
		}
		if seen[key] {
			return nil, fmt.Errorf("the key %q appears twice, so which value the tool uses is ambiguous", key)
		}
		seen[key] = true
		for _, w := range want {
			if key != w && strings.EqualFold(key, w) {
				return nil, fmt.Errorf("the key %q should be spelled %q: the two differ only in case, so which value the tool uses is ambiguous", key, w)
			}
		}
		for _, w := range want {
			if key == w {
				got[w] = val
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("not a JSON object: %s", text.OneLine(err.Error()))
	}
	if dec.More() {
		return nil, errors.New("data after the JSON object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the JSON object")
	}
	return got, nil
}

// stringField decodes fields[key] as a JSON string; ok is false when it is
// absent or not a string.
func stringField(fields map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := fields[key]
	if !ok {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
