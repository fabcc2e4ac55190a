package mcp

import (
	"context"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/metrics"
	"github.com/planq-dev/planq/search"
)

// callRecorder records every planq tool call in the project's local
// metrics (package metrics), in one middleware around all tool handlers:
// the call and whether it failed; what its result reports (reporter: the
// learnings and decisions it surfaced, a search that found nothing); and,
// for a tool that is not read-only, the text its arguments hold, which is
// how a later citation of a surfaced entry is told. Recording never
// changes a result: its errors are dropped.
type callRecorder struct {
	dir    string              // the server's directory; its project is resolved per call (jj_git_init may make it one)
	getenv func(string) string // PLANQ_HOME, PLANQ_METRICS; nil: os.Getenv
	writes map[string]bool     // the tools that are not read-only
}

// reporter is a tool result that has more to record than the call.
type reporter interface {
	metricsRecords() []metrics.Record
}

func newCallRecorder(dir string, getenv func(string) string, tools []server.ServerTool) *callRecorder {
	m := &callRecorder{dir: dir, getenv: getenv, writes: map[string]bool{}}
	for _, t := range tools {
		if ro := t.Tool.Annotations.ReadOnlyHint; ro == nil || !*ro {
			m.writes[t.Tool.Name] = true
		}
	}
	return m
}

// middleware wraps a tool handler with the recording.
func (m *callRecorder) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := next(ctx, req)
		m.record(req, res, err)
		return res, err
	}
}

func (m *callRecorder) record(req mcp.CallToolRequest, res *mcp.CallToolResult, err error) {
	defer func() { _ = recover() }()
	if metrics.Off(m.getenv) {
		return
	}
	dir, derr := metrics.DirFor(m.dir, m.getenv)
	if derr != nil {
		return
	}
	name := req.Params.Name
	failed := err != nil || res == nil || res.IsError
	recs := []metrics.Record{{Kind: metrics.KindTool, Tool: name, Err: failed}}
	if !failed {
		if r, ok := res.StructuredContent.(reporter); ok {
			recs = append(recs, r.metricsRecords()...)
		}
		if text := argText(req.GetArguments()); m.writes[name] && text != "" {
			recs = append(recs, metrics.Record{Kind: metrics.KindWrite, Tool: name, Text: text})
		}
	}
	_ = metrics.Append(dir, recs...)
}

// argText joins the string arguments of a call (nested ones too), by key.
func argText(args map[string]any) string {
	var parts []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if strings.TrimSpace(x) != "" {
				parts = append(parts, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(args)
	return strings.Join(parts, "\n")
}

func (o ContextOutput) metricsRecords() []metrics.Record {
	if es := o.Surfaced(); len(es) > 0 {
		return []metrics.Record{{Kind: metrics.KindSurface, Where: metrics.WhereContext, Entries: es}}
	}
	return nil
}

func (o SearchOutput) metricsRecords() []metrics.Record {
	if len(o.Hits) == 0 {
		return []metrics.Record{{Kind: metrics.KindEmptySearch, Query: o.Query}}
	}
	var es []metrics.Entry
	for _, h := range o.Hits {
		switch h.Kind {
		case search.KindLearning, search.KindDecision:
			es = append(es, metrics.Entry{ID: h.ID, Kind: string(h.Kind), Title: h.Title})
		}
	}
	if len(es) == 0 {
		return nil
	}
	return []metrics.Record{{Kind: metrics.KindSurface, Where: metrics.WhereSearch, Entries: es}}
}
