package search

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSearch checks that arbitrary documents and queries never panic, that
// the index and the scan agree, and that snippets stay bounded.
func FuzzSearch(f *testing.F) {
	f.Add("Retry the flaky tests\x00Tokens expire\x00認証モジュール", "retries token", 40)
	f.Add("```go\nx\n```\x00# Title\n\n- item", "x item", 5)
	f.Add("\xff\xfe broken utf8\x00ÜBER über", "über", 1)
	f.Fuzz(func(t *testing.T, texts, query string, n int) {
		var docs []Doc
		for i, body := range strings.Split(texts, "\x00") {
			docs = append(docs, Doc{ID: string(rune('a'+i%26)) + strings.Repeat("x", i/26), Kind: KindLog, Source: "agent", Body: body, Date: day})
		}
		opts := Options{SnippetLen: n % 300}
		idx := NewIndex()
		if err := idx.Add(docs...); err != nil {
			t.Fatal(err)
		}
		a, b := idx.Search(query, opts), Scan(docs, query, opts)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("index %+v\nscan %+v", a, b)
		}
		for _, h := range a {
			if utf8.RuneCountInString(h.Snippet) > opts.snippetLen()+2 {
				t.Fatalf("snippet of %d characters, limit %d", utf8.RuneCountInString(h.Snippet), opts.snippetLen())
			}
		}
	})
}
