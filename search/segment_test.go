package search

import (
	"errors"
	"reflect"
	"testing"
)

// TestScanSegmentsMatchesScan splits generated documents into segments and
// loose documents and checks that ScanSegments returns exactly Scan's hits
// over all of them, for several queries and options, and that the
// segments give their documents back unchanged.
func TestScanSegmentsMatchesScan(t *testing.T) {
	t.Parallel()
	docs := Generate(6000, 7)
	for i := range docs {
		docs[i].Source = []string{"agent", "global", "agent:bob"}[i%3]
		docs[i].Group = docs[i].Source + ":g"
	}
	// Segments hold documents of one source, as archive segments do.
	var refs []SegmentRef
	var loose []Doc
	bySource := map[string][]Doc{}
	for _, d := range docs {
		bySource[d.Source] = append(bySource[d.Source], d)
	}
	var all []Doc
	for _, src := range []string{"agent", "global", "agent:bob"} {
		ds := bySource[src]
		for len(ds) > 700 {
			seg, err := OpenSegment(EncodeSegment(ds[:700]))
			if err != nil {
				t.Fatal(err)
			}
			back, err := seg.Docs(src, src+":g")
			if err != nil || !reflect.DeepEqual(back, ds[:700]) {
				t.Fatalf("a segment's documents did not come back unchanged (%v)", err)
			}
			refs = append(refs, SegmentRef{Seg: seg, Source: src, Group: src + ":g"})
			all = append(all, ds[:700]...)
			ds = ds[700:]
		}
		loose = append(loose, ds...)
		all = append(all, ds...)
	}
	for _, q := range []string{"retry token", "flaky clock timeout", "migration", "deadlock mutex goroutine", "alpha", "zzz", "the"} {
		for _, o := range []Options{{}, {Kinds: []Kind{KindDecision}}, {Limit: 50}, {Sources: []string{"global"}}, {Limit: 1}} {
			want := Scan(all, q, o)
			got, err := ScanSegments(refs, loose, q, o)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q %+v:\nsegments %v\nscan     %v", q, o, ids(got), ids(want))
			}
		}
	}
	if got, err := ScanSegments(nil, nil, "retry", Options{}); err != nil || got != nil {
		t.Errorf("nothing to search: %v %v", got, err)
	}
}

// TestDamagedSegmentsAreErrorsNotPanics cuts and garbles an encoded
// segment: opening or scanning it fails with ErrSegment, never a panic.
func TestDamagedSegmentsAreErrorsNotPanics(t *testing.T) {
	t.Parallel()
	data := EncodeSegment(Generate(50, 3))
	for cut := 0; cut < len(data); cut += 7 {
		check(t, data[:cut])
	}
	for i := 0; i < len(data); i += 5 {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0xa5
		check(t, bad)
	}
}

func check(t *testing.T, data []byte) {
	t.Helper()
	seg, err := OpenSegment(data)
	if err != nil {
		if !errors.Is(err, ErrSegment) {
			t.Fatalf("OpenSegment: %v", err)
		}
		return
	}
	for _, q := range []string{"retry token", "the", "alpha"} {
		if _, err := ScanSegments([]SegmentRef{{Seg: seg}}, nil, q, Options{}); err != nil && !errors.Is(err, ErrSegment) {
			t.Fatalf("ScanSegments: %v", err)
		}
	}
	_, _ = seg.Docs("", "")
}
