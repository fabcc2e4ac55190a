package search

import "testing"

func BenchmarkTokenizeDocs(b *testing.B) {
	docs := benchDocs(100_000)[:50_000]
	ptrs := make([]*Doc, len(docs))
	for i := range docs {
		ptrs[i] = &docs[i]
	}
	b.ResetTimer()
	cpu := cpuTime()
	defer reportCPU(b, cpu)
	for range b.N {
		tokenizeDocs(ptrs)
	}
}
