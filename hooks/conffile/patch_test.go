package conffile

import (
	"strings"
	"testing"
)

// planqServer is what the tests add: a server entry like planq's.
func planqServer() *Object {
	e := NewObject()
	e.Set("command", "/opt/planq")
	e.Set("args", []any{"mcp", "serve"})
	return e
}

// Patch adds planq's entry to a user's file keeping every byte around it,
// in the layout of its neighbours, and removing it gives back the file
// byte for byte.
func TestPatchAddRemoveRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"two spaces", "{\n  \"theme\": \"dark\",\n  \"mcp\": {\n    \"github\": {\"command\": \"gh\"}\n  }\n}\n",
			"{\n  \"theme\": \"dark\",\n  \"mcp\": {\n    \"github\": {\"command\": \"gh\"},\n    \"planq\": {\"command\": \"/opt/planq\", \"args\": [\"mcp\", \"serve\"]}\n  }\n}\n"},
		{"tabs and comments", "{\n\t// my servers\n\t\"mcp\": {\n\t\t// GitHub's\n\t\t\"github\": {\n\t\t\t\"command\": \"gh\"\n\t\t}\n\t}\n}",
			"{\n\t// my servers\n\t\"mcp\": {\n\t\t// GitHub's\n\t\t\"github\": {\n\t\t\t\"command\": \"gh\"\n\t\t},\n\t\t\"planq\": {\n\t\t\t\"command\": \"/opt/planq\",\n\t\t\t\"args\": [\n\t\t\t\t\"mcp\",\n\t\t\t\t\"serve\"\n\t\t\t]\n\t\t}\n\t}\n}"},
		{"trailing commas", "{\n   \"mcp\": {\n      \"github\": {\"command\": \"gh\"},\n   },\n}\n",
			"{\n   \"mcp\": {\n      \"github\": {\"command\": \"gh\"},\n      \"planq\": {\"command\": \"/opt/planq\", \"args\": [\"mcp\", \"serve\"]},\n   },\n}\n"},
		{"windows line endings", "{\r\n  \"mcp\": {\r\n    \"github\": {\r\n      \"command\": \"gh\"\r\n    }\r\n  }\r\n}\r\n",
			"{\r\n  \"mcp\": {\r\n    \"github\": {\r\n      \"command\": \"gh\"\r\n    },\r\n    \"planq\": {\r\n      \"command\": \"/opt/planq\",\r\n      \"args\": [\r\n        \"mcp\",\r\n        \"serve\"\r\n      ]\r\n    }\r\n  }\r\n}\r\n"},
		{"one line", `{"mcp": {"github": {"command": "gh"}}}`,
			`{"mcp": {"github": {"command": "gh"}, "planq": {"command": "/opt/planq", "args": ["mcp", "serve"]}}}`},
		{"empty object", "{\n  \"mcp\": {}\n}\n",
			"{\n  \"mcp\": {\n    \"planq\": {\n      \"command\": \"/opt/planq\",\n      \"args\": [\n        \"mcp\",\n        \"serve\"\n      ]\n    }\n  }\n}\n"},
		{"no mcp yet, CRLF-free, block comment", "{\n    /* mine */ \"theme\": \"dark\"\n}\n",
			"{\n    /* mine */ \"theme\": \"dark\",\n    \"mcp\": {\n        \"planq\": {\n            \"command\": \"/opt/planq\",\n            \"args\": [\n                \"mcp\",\n                \"serve\"\n            ]\n        }\n    }\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			servers, err := doc.Path("f", true, "mcp")
			if err != nil {
				t.Fatal(err)
			}
			servers.Set("planq", planqServer())
			got, err := Patch([]byte(tt.in), doc)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("added:\n%s\nwant:\n%s", got, tt.want)
			}
			back, err := Parse(got)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := back.Path("f", false, "mcp")
			s.Del("planq")
			if !strings.Contains(tt.in, `"mcp"`) {
				back.Del("mcp")
			}
			undone, err := Patch(got, back)
			if err != nil {
				t.Fatal(err)
			}
			if string(undone) != tt.in {
				t.Errorf("removed again:\n%q\nwant the original:\n%q", undone, tt.in)
			}
		})
	}
}

// Lists: an element changed in place keeps its place and its neighbours'
// bytes; elements are appended and removed in the list's own layout.
func TestPatchLists(t *testing.T) {
	t.Parallel()
	in := `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/old/planq hook pre-tool-use"}]}, // planq's
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-audit"}]}
    ]
  }
}
`
	doc, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	hooks, _ := doc.Path("f", false, "hooks")
	v, _ := hooks.Get("PreToolUse")
	groups := v.([]any)
	first := groups[0].(*Object)
	hv, _ := first.Get("hooks")
	hv.([]any)[0].(*Object).Set("command", "/new/planq hook pre-tool-use")
	added := NewObject()
	added.Set("matcher", "Write")
	added.Set("hooks", []any{})
	hooks.Set("PreToolUse", append(groups, added))
	got, err := Patch([]byte(in), doc)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(in, "/old/planq", "/new/planq", 1)
	want = strings.Replace(want, `"my-audit"}]}`+"\n", `"my-audit"}]},`+"\n      "+`{"matcher": "Write", "hooks": []}`+"\n", 1)
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A key written twice is refused, not guessed at.
func TestPatchDuplicateKey(t *testing.T) {
	t.Parallel()
	in := `{"a": 1, "a": 2}`
	doc := NewObject()
	doc.Set("a", Int(3))
	if _, err := Patch([]byte(in), doc); err == nil || !strings.Contains(err.Error(), `"a" is in one object twice`) {
		t.Fatalf("err = %v", err)
	}
}
