package scan

import (
	"context"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// TestTopNFetchColumnMissingFromFile: ORDER BY k LIMIT n returning
// a column added after the file was written (so the file stores none of
// the fetched columns). The row path returns NULL for it; fetchFile reads
// the winners by row ranges, and a reader with no stored column reports
// Position row -1 for ranged reads, so the winners are never found.
func TestTopNFetchColumnMissingFromFile(t *testing.T) {
	ctx := context.Background()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	old := &schema.Schema{Columns: []schema.Column{{ID: 1, Name: "k", Type: schema.Type{Kind: schema.Int64}, Nullable: true}}}
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(old))
	for i := range 100 {
		b.Field(0).(*array.Int64Builder).Append(int64(100 - i))
	}
	rec := b.NewRecord()
	b.Release()
	defer rec.Release()
	f, err := datafile.Write(ctx, store, "m/data/f.parquet", old, []arrow.Record{rec}, datafile.WriteOptions{RowGroupRows: 30})
	if err != nil {
		t.Fatal(err)
	}
	now := &schema.Schema{Columns: []schema.Column{
		{ID: 1, Name: "k", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
		{ID: 2, Name: "y", Type: schema.Type{Kind: schema.Int64}, Nullable: true}, // added later
	}}
	p, ok := CompileTopN(now, nil, []TopNKey{{FieldID: 1, NullsFirst: true}}, []int{1, 2}, 3, 0)
	if !ok {
		t.Fatal("not compiled")
	}
	rows, _, err := p.Run(ctx, TopNInput{Store: store, Files: []manifest.DataFile{f}, Parallelism: 1})
	if err != nil {
		t.Fatalf("Run: %v (the row path answers k=1,2,3 with y NULL)", err)
	}
	if len(rows) != 3 || rows[0][0] != int64(1) || rows[0][1] != nil {
		t.Fatalf("rows = %v", rows)
	}
}

// TestTopNPageRangesMatchGMS: a filter the page index prunes by
// (x, which grows with the row) makes the first pass read row ranges and
// the fetch pass read the winners' rows by ranges; the answer must be
// GMS's sort of the filtered rows.
func TestTopNPageRangesMatchGMS(t *testing.T) {
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := writeTopNFiles(t, store, "pr", 3, 30_000, 12_000, false)
	x := expression.NewGetFieldWithTable(3, 1, types.Int64, "pr", "t", "x", true)
	for _, c := range []struct {
		lo, hi int64
		keys   []TopNKey
		out    []int
		limit  int
	}{
		{5_000, 9_000, []TopNKey{{FieldID: 1, NullsFirst: true}, {FieldID: 4, Desc: true}}, []int{4, 1, 2, 3}, 20},
		{41_000, 77_000, []TopNKey{{FieldID: 2, Desc: true}, {FieldID: 4, NullsFirst: true}}, []int{3, 2, 4}, 50},
		{11_990, 12_010, []TopNKey{{FieldID: 3, NullsFirst: true}, {FieldID: 4, NullsFirst: true}}, []int{1, 2, 3, 4}, 7},
	} {
		filter := expression.NewBetween(x, expression.NewLiteral(c.lo, types.Int64), expression.NewLiteral(c.hi, types.Int64))
		p, ok := CompileTopN(topNSchema, []sql.Expression{filter}, c.keys, c.out, int64(c.limit), 0)
		if !ok {
			t.Fatal("not compiled")
		}
		rows, st, err := p.Run(context.Background(), TopNInput{Store: store, Files: files, Parallelism: 2})
		if err != nil {
			t.Fatal(err)
		}
		if st.RowsSkipped == 0 {
			t.Logf("range [%d, %d]: the page index skipped nothing (%+v)", c.lo, c.hi, st)
		}
		want := referenceTopNWhere(t, store, files, c.keys, c.out, c.limit, 0, func(r sql.Row) bool {
			v := r[3].(int64)
			return v >= c.lo && v <= c.hi
		})
		if got, w := renderRows(rows), renderRows(want); got != w {
			t.Errorf("range [%d, %d]:\ngot:\n%s\nwant:\n%s", c.lo, c.hi, got, w)
		}
	}
}
