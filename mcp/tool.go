package mcp

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// hints are a tool's four behaviour annotations, always all set.
type hints struct {
	readOnly, destructive, idempotent, openWorld bool
}

// Common hint sets.
var (
	readOnly = hints{readOnly: true, idempotent: true}
	writes   = hints{}
)

// newTool declares a tool whose input and output schemas come from In and
// Out. Output schemas are compacted (no additionalProperties, no nullable
// arrays) to keep tools/list small; input schemas stay strict.
func newTool[In, Out any](name, description string, h hints) mcp.Tool {
	t := mcp.NewTool(name,
		mcp.WithDescription(description),
		mcp.WithInputSchema[In](),
		mcp.WithOutputSchema[Out](),
		mcp.WithReadOnlyHintAnnotation(h.readOnly),
		mcp.WithDestructiveHintAnnotation(h.destructive),
		mcp.WithIdempotentHintAnnotation(h.idempotent),
		mcp.WithOpenWorldHintAnnotation(h.openWorld),
	)
	t.RawInputSchema = compactSchema(t.RawInputSchema, false)
	out, err := json.Marshal(t.OutputSchema)
	if err == nil {
		t.RawOutputSchema = compactSchema(out, true)
		t.OutputSchema = mcp.ToolOutputSchema{}
	}
	return t
}

// compactSchema drops what adds bytes but no meaning for the model: empty
// "required" lists and null alternatives of arrays and objects, and for
// output schemas "required" and "additionalProperties": false.
func compactSchema(raw json.RawMessage, output bool) json.RawMessage {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw
	}
	var walk func(any)
	walk = func(x any) {
		switch n := x.(type) {
		case map[string]any:
			if r, ok := n["required"].([]any); ok && len(r) == 0 {
				delete(n, "required")
			}
			if p, ok := n["properties"].(map[string]any); ok && len(p) == 0 {
				delete(n, "properties")
			}
			if ts, ok := n["type"].([]any); ok && len(ts) == 2 && ts[0] == "null" {
				n["type"] = ts[1]
			}
			if output {
				delete(n, "required")
				if ap, ok := n["additionalProperties"].(bool); ok && !ap {
					delete(n, "additionalProperties")
				}
			}
			for _, c := range n {
				walk(c)
			}
		case []any:
			for _, c := range n {
				walk(c)
			}
		}
	}
	walk(v)
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}
