// Package conffile edits agent hosts' configuration files the way a user
// would want: a JSON or JSONC file is read into an Object model (keys in
// file order), changed there, and written back by patching the file's own
// syntax tree in place (patch.go, with github.com/tailscale/hujson), so
// every byte planq does not own stays (comments, indentation, key order,
// trailing commas, the final newline, the mode) and taking planq's part
// out again gives the file back; every edit can be shown as a unified diff
// first, and files are replaced atomically. It also quotes and splits the
// command lines hosts run (shell.go), merges planq's hooks into hooks
// objects of Claude Code's shape (hooks.go), keeps planq's marked block in
// a user's text file (block.go), keeps local scope's files out of jj and
// git (exclude.go, with package ignorefile; tracked.go), and says what an
// install did and doctor found (wiring.go).
package conffile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tailscale/hujson"
)

// Object is a JSON object that keeps its keys in file order, so editing a
// user's settings file changes only what planq owns.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Get returns the value at k.
func (o *Object) Get(k string) (any, bool) { v, ok := o.vals[k]; return v, ok }

// Set sets k to v, appending k when it is new.
func (o *Object) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Del removes k.
func (o *Object) Del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// Child returns the Object at key k, creating it when missing; ok is false
// when k holds something that is not an Object.
func (o *Object) Child(k string) (*Object, bool) {
	v, exists := o.Get(k)
	if !exists || v == nil {
		c := NewObject()
		o.Set(k, c)
		return c, true
	}
	c, ok := v.(*Object)
	return c, ok
}

// Parse decodes a JSON document into *Object, []any, string,
// json.Number, bool and nil values. Comments and trailing commas (JSONC,
// which OpenCode and Gemini CLI read) are allowed. Empty input is an empty
// Object.
func Parse(data []byte) (*Object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return NewObject(), nil
	}
	// A copy: hujson.Standardize blanks comments in the bytes it is given.
	std, err := hujson.Standardize(bytes.Clone(data))
	if err != nil {
		return nil, err
	}
	var v any
	if err := decodeInto(std, &v); err != nil {
		return nil, err
	}
	o, ok := v.(*Object)
	if !ok {
		return nil, errors.New("the top-level value is not an Object")
	}
	return o, nil
}

// decodeInto decodes one standard JSON value into the Object model.
func decodeInto(data []byte, out *any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the top-level value")
	}
	*out = v
	return nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// Encode writes v with two-space indentation, as Claude Code writes its
// files, without HTML escaping.
func Encode(v any) []byte { return encodeJSONIndent(v, "  ") }

// encodeJSONIndent writes v indented by unit per level.
func encodeJSONIndent(v any, unit string) []byte {
	var b bytes.Buffer
	writeValue(&b, v, 0, unit)
	return b.Bytes()
}

// detectIndent returns the indentation unit of a JSON document: the leading
// whitespace of its first indented line, else two spaces.
func detectIndent(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if n := len(line) - len(trimmed); n > 0 && len(trimmed) > 0 {
			return string(line[:n])
		}
	}
	return "  "
}

func writeValue(b *bytes.Buffer, v any, depth int, unit string) {
	indent := func(d int) { b.WriteString(strings.Repeat(unit, d)) }
	switch t := v.(type) {
	case *Object:
		if len(t.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range t.keys {
			indent(depth + 1)
			writeString(b, k)
			b.WriteString(": ")
			writeValue(b, t.vals[k], depth+1, unit)
			if i < len(t.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		indent(depth)
		b.WriteByte('}')
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range t {
			indent(depth + 1)
			writeValue(b, e, depth+1, unit)
			if i < len(t)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		indent(depth)
		b.WriteByte(']')
	case string:
		writeString(b, t)
	case json.Number:
		b.WriteString(t.String())
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	default:
		data, _ := json.Marshal(t)
		b.Write(data)
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode's newline
}

// Number is a JSON number written as s.
func Number(s string) json.Number { return json.Number(s) }
