package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/internal/text"
)

// Errors DecodeObject returns, phrased to follow the name of whose input it
// was ("hook input is not a JSON object").
var (
	ErrNoInput   = errors.New("is empty")
	ErrNotObject = errors.New("is not a JSON object")
	ErrTrailing  = errors.New("has data after its JSON object")
)

// MalformedError is an input object DecodeObject cannot read as the host
// meant it: bad JSON, a field of the wrong type, a key given twice or one
// differing from a known key only in case. Detail is one line.
type MalformedError struct{ Detail string }

// Error says what is malformed.
func (e *MalformedError) Error() string { return "is malformed: " + e.Detail }

// DecodeObject decodes data, one JSON object and nothing after it, into v (a
// pointer to a struct with json tags) the way the host that wrote it reads
// it: exactly (gate.ExactFields), so no key appears twice and none differs
// from one of v's keys only in case (Go's decoder would take it; the host
// would not). Keys v does not know are ignored. Every hook protocol reads
// its input with it. On an error v may be partly filled.
func DecodeObject(data []byte, v any) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return ErrNoInput
	}
	if data[0] != '{' {
		return fmt.Errorf("%w (it starts with %q)", ErrNotObject, []rune(string(data[:min(len(data), 4)]))[0])
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return &MalformedError{text.OneLine(err.Error())}
	}
	if int(dec.InputOffset()) != len(data) {
		return ErrTrailing
	}
	if _, err := gate.ExactFields(data, jsonKeys(reflect.TypeOf(v).Elem())...); err != nil {
		return &MalformedError{text.OneLine(err.Error())}
	}
	return nil
}

// jsonKeys are the JSON keys of struct type t's fields.
func jsonKeys(t reflect.Type) []string {
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// DecodeInput is DecodeObject for a host's hook input, with errors that
// name the host (display: "Claude Code"), for the hook's one-line message.
func DecodeInput(data []byte, v any, display string) error {
	var malformed *MalformedError
	switch err := DecodeObject(data, v); {
	case err == nil:
		return nil
	case errors.Is(err, ErrNoInput):
		return fmt.Errorf("no hook input on stdin; %s sends the hook's JSON there", display)
	case errors.As(err, &malformed):
		return fmt.Errorf("hook input is not the JSON %s sends: %s", display, malformed.Detail)
	default:
		return fmt.Errorf("hook input %w", err)
	}
}
