package maintenance

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
)

// rowIDsByValue maps each id value of the head to its row id
// (RowIDStart + position in its file), and checks that the live files'
// row-id ranges are disjoint and below the dataset's next-row-id.
func rowIDsByValue(t *testing.T, e *env, ds *catalogstore.Dataset) map[int64]int64 {
	t.Helper()
	cur := e.reload(t, ds)
	out := map[int64]int64{}
	type span struct{ lo, hi int64 }
	var spans []span
	for _, f := range e.liveFiles(t, cur) {
		if f.RowIDStart < 0 || f.RowIDStart+f.RecordCount > cur.NextRowID {
			t.Fatalf("%s: row ids [%d, %d) outside [0, next-row-id %d)", f.Path, f.RowIDStart, f.RowIDStart+f.RecordCount, cur.NextRowID)
		}
		spans = append(spans, span{f.RowIDStart, f.RowIDStart + f.RecordCount})
		r, err := datafile.Open(context.Background(), e.b, f, &cur.Schema, []int{cur.Schema.Columns[0].ID})
		if err != nil {
			t.Fatal(err)
		}
		pos := f.RowIDStart
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			col := rec.Column(0).(*array.Int64)
			for i := 0; i < col.Len(); i++ {
				out[col.Value(i)] = pos
				pos++
			}
			rec.Release()
		}
		r.Close()
	}
	slices.SortFunc(spans, func(a, b span) int { return int(a.lo - b.lo) })
	for i := 1; i < len(spans); i++ {
		if spans[i].lo < spans[i-1].hi {
			t.Fatalf("row-id ranges overlap: %v", spans)
		}
	}
	return out
}

// TestCompact_KeepsRowIDsOfOneRun: merging consecutive appends in order
// keeps every row's id, and takes no new ones.
func TestCompact_KeepsRowIDsOfOneRun(t *testing.T) {
	e := newEnv(t)
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	e.appendIDs(t, ds, rangeIDs(10000, 10400)...) // row ids 0..399, a large file
	for i := int64(0); i < 4; i++ {
		e.appendIDs(t, ds, rangeIDs(i*20, i*20+20)...) // row ids 400+20i ..
	}
	est := estimate(e.liveFiles(t, ds)[1])
	before := rowIDsByValue(t, e, ds)
	next := e.reload(t, ds).NextRowID
	res, err := Compact(context.Background(), e.cat, ds, sizes(est, 4))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plan.Files) != 4 || len(res.Outputs) != 1 || res.Outputs[0].RowIDStart != 400 {
		t.Fatalf("outputs %+v", res.Outputs)
	}
	if after := rowIDsByValue(t, e, ds); !maps.Equal(before, after) {
		t.Fatalf("row ids changed:\n%v\n%v", before, after)
	}
	if cur := e.reload(t, ds); cur.NextRowID != next || cur.CurrentFiles != 2 {
		t.Fatalf("next-row-id %d (was %d), %d files", cur.NextRowID, next, cur.CurrentFiles)
	}
}

// TestCompact_NewRowIDsWhenRunsMix: sorting interleaves two files' rows,
// which no longer form one run of ids: the output gets new ids after
// next-row-id, disjoint from every other file's.
func TestCompact_NewRowIDsWhenRunsMix(t *testing.T) {
	e := newEnv(t)
	ds := e.dataset(t, "s", catalogstore.CreateDatasetOptions{SortOrder: []string{"id"}})
	var even, odd []int64
	for v := int64(0); v < 40; v++ {
		if v%2 == 0 {
			even = append(even, v)
		} else {
			odd = append(odd, v)
		}
	}
	e.appendIDs(t, ds, even...) // row ids 0..19
	e.appendIDs(t, ds, odd...)  // row ids 20..39
	e.appendIDs(t, ds, 1000)    // row id 40, not compacted
	est := estimate(e.liveFiles(t, ds)[0])
	cfg := sizes(est, 2)
	cfg.MinSize = est / 2 // only the overlap selects files
	res, err := Compact(context.Background(), e.cat, ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plan.Files) != 2 || len(res.Outputs) != 1 || res.Outputs[0].RowIDStart != -1 {
		t.Fatalf("plan %v, outputs %+v", res.Plan.Files, res.Outputs)
	}
	after := rowIDsByValue(t, e, ds) // also: ranges disjoint, below next-row-id
	for v := int64(0); v < 40; v++ {
		if after[v] != 41+v {
			t.Fatalf("value %d has row id %d, want %d (new ids from 41, in sorted order)", v, after[v], 41+v)
		}
	}
	if after[1000] != 40 {
		t.Fatalf("the untouched file's row id moved: %d", after[1000])
	}
	if cur := e.reload(t, ds); cur.NextRowID != 81 {
		t.Fatalf("next-row-id %d, want 81", cur.NextRowID)
	}
}
