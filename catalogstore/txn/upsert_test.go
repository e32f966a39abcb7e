package txn_test

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/txn"
)

// kv builds (id, s) rows from pairs; a negative id is NULL.
func (e *env) kv(pairs ...any) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(e.sch))
	defer b.Release()
	for i := 0; i < len(pairs); i += 2 {
		if id := pairs[i].(int); id < 0 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(int64(id))
		}
		b.Field(1).(*array.StringBuilder).Append(pairs[i+1].(string))
	}
	return b.NewRecord()
}

// rows returns the dataset's (id|s) rows sorted, ids by their last digit
// and NULL as "/".
func (e *env) rows(t *testing.T, name string) []string {
	t.Helper()
	ds := e.load(t, name)
	files, _, err := e.cat.Files(e.ctx, ds, ds.CurrentSnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		r, err := datafile.Open(e.ctx, e.cat.Blob(), f, &ds.Schema, ds.Schema.FieldIDs())
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			ids, ss := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
			for i := 0; i < int(rec.NumRows()); i++ {
				id := int64(-1)
				if !ids.IsNull(i) {
					id = ids.Value(i)
				}
				out = append(out, string(rune('0'+id%10))+"|"+ss.Value(i))
			}
			rec.Release()
		}
		r.Close()
	}
	slices.Sort(out)
	return out
}

func upsert(t *testing.T, e *env, tt *txn.Table, r arrow.Record) {
	t.Helper()
	defer r.Release()
	if err := tt.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := tt.Upsert(e.ctx, []int{0}, r); err != nil {
		t.Fatal(err)
	}
	if err := tt.Complete(e.ctx); err != nil {
		t.Fatal(err)
	}
}

// TestTxn_Upsert: REPLACE by key in one commit — committed rows, rows of
// an earlier statement and earlier rows of the same batch are replaced by
// the last row of their key; NULL keys never match; a discarded upsert
// changes nothing.
func TestTxn_Upsert(t *testing.T) {
	e := newEnv(t)
	e.create(t, "t", nil)
	x := txn.New()
	upsert(t, e, e.table(t, x, "t"), e.kv(1, "a", 2, "b", 3, "c", -1, "n"))
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	tt := e.table(t, x, "t")
	upsert(t, e, tt, e.kv(2, "B", 4, "d", 4, "D", -1, "m"))
	upsert(t, e, tt, e.kv(4, "DD", 3, "C"))
	// A failed statement's upsert is dropped whole: 1 keeps "a".
	if err := tt.Begin(); err != nil {
		t.Fatal(err)
	}
	r := e.kv(1, "X")
	if err := tt.Upsert(e.ctx, []int{0}, r); err != nil {
		t.Fatal(err)
	}
	r.Release()
	tt.Discard()
	before := e.load(t, "t").CurrentSnapshotID
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	want := []string{"/|m", "/|n", "1|a", "2|B", "3|C", "4|DD"} // "/" is a NULL id
	if got := e.rows(t, "t"); !slices.Equal(got, want) {
		t.Fatalf("after upserts: %q, want %q", got, want)
	}
	if head := e.load(t, "t").CurrentSnapshotID; head != before+1 {
		t.Fatalf("upserts made %d snapshots, want one commit", head-before)
	}
	// Another key in the same transaction is refused.
	tt = e.table(t, x, "t")
	upsert(t, e, tt, e.kv(5, "e"))
	if err := tt.Upsert(e.ctx, []int{1}, e.kv(6, "f")); err == nil {
		t.Fatal("upsert by a second key in one transaction was accepted")
	}
	x.Rollback()
}
