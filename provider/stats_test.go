package provider

import (
	"hash/maphash"
	"math"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// TestSummarise totals a column's manifest stats: rows, nulls, min/max,
// the range bound on distinct values, and per-file buckets only when the
// files do not overlap and all have exact bounds.
func TestSummarise(t *testing.T) {
	col := schema.Column{ID: 3, Name: "k", Type: schema.Type{Kind: schema.Int64}}
	file := func(lo, hi, rows, nulls int64) manifest.DataFile {
		l, _ := datafile.EncodeBound(col.Type, lo)
		h, _ := datafile.EncodeBound(col.Type, hi)
		return manifest.DataFile{Path: "f", RecordCount: rows, StatsState: manifest.StatsProvided, FieldIDs: []int{3},
			NullCounts: []int64{nulls}, LowerBounds: [][]byte{l}, UpperBounds: [][]byte{h}, BoundsExact: []bool{true}, ColumnSizes: []int64{rows * 2}}
	}
	cs := summarise([]manifest.DataFile{file(101, 150, 60, 10), file(1, 100, 100, 0)}, col)
	if cs.rows != 160 || cs.nulls != 10 || cs.min != int64(1) || cs.max != int64(150) || cs.avgSize() != 2 {
		t.Fatalf("summary %+v", cs)
	}
	if d := cs.distinctBound(); d != 150 {
		t.Errorf("distinct bound %d, want 150 (max - min + 1, under the 150 non-null rows)", d)
	}
	h := cs.histogram(col.Type, 150)
	if len(h) != 2 || h[0].RowCount() != 100 || h[0].UpperBound()[0] != int64(100) || h[1].UpperBound()[0] != int64(150) || h[1].NullCount() != 10 {
		t.Fatalf("histogram %v", h)
	}
	if h := summarise([]manifest.DataFile{file(1, 100, 100, 0), file(50, 150, 100, 0)}, col).histogram(col.Type, 0); h != nil {
		t.Errorf("overlapping files give histogram %v, want none", h)
	}
	pending := manifest.DataFile{Path: "p", RecordCount: 5, StatsState: manifest.StatsPending}
	if cs := summarise([]manifest.DataFile{file(1, 100, 100, 0), pending}, col); cs.rows != 105 || cs.files != nil {
		t.Errorf("a file without stats: rows %d buckets %v, want 105 rows and no histogram", cs.rows, cs.files)
	}
}

// TestKMV: exact below the sketch size, within four standard errors
// above it (the relative error of a k-minimum-values estimate is about
// 1/sqrt(k-2), 2.2 % for k = 2048; the seed is random, so a tighter bound
// fails now and then), duplicates and equal decimals ignored.
func TestKMV(t *testing.T) {
	seed := maphash.MakeSeed()
	s := newKMV(seed)
	for i := range 3000 {
		s.add(int64(i % 1000))
	}
	if got := s.estimate(); got != 1000 {
		t.Errorf("1000 distinct values: estimate %d, want exactly 1000", got)
	}
	s = newKMV(seed)
	const n = 200_000
	for i := range n {
		s.add(int64(i))
		s.add(int64(i))
	}
	if bound := 4 / math.Sqrt(kmvSize-2); math.Abs(float64(s.estimate())-n)/n > bound {
		t.Errorf("%d distinct values: estimate %d, more than %.1f%% off", n, s.estimate(), 100*bound)
	}
}
