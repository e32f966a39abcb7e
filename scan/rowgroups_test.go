package scan

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// TestReadFile_PrunesRowGroups: a file of 4 row groups (ids 0..7, two per
// group) read with id >= 6 decodes only the last group, returns exactly the
// matching rows' superset from it, and is not cached as the whole file.
func TestReadFile_PrunesRowGroups(t *testing.T) {
	ctx := context.Background()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &schema.Schema{Columns: []schema.Column{{ID: 1, Name: "id", Type: schema.Type{Kind: schema.Int64}, Nullable: true}}}
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(s))
	for i := int64(0); i < 8; i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
	}
	rec := b.NewRecord()
	b.Release()
	defer rec.Release()
	f, err := datafile.Write(ctx, store, "t/data/f.parquet", s, []arrow.Record{rec}, datafile.WriteOptions{RowGroupRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	filter := expression.NewGreaterThanOrEqual(
		expression.NewGetFieldWithTable(0, 1, types.Int64, "d", "t", "id", true),
		expression.NewLiteral(int64(6), types.Int64))
	cache := NewCache(1 << 20)
	req := Request{Store: store, Schema: s, FieldIDs: []int{1}, Filters: []sql.Expression{filter}, Cache: cache}
	rows, err := readFile(ctx, req, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0][0] != int64(6) || rows[1][0] != int64(7) {
		t.Fatalf("rows %v, want the last row group [6 7]", rows)
	}
	if _, ok := cache.get(cacheKey(f.Path, s.ID, req.FieldIDs)); ok {
		t.Fatal("a pruned read was cached as the whole file")
	}
	req.Filters = nil
	all, err := readFile(ctx, req, f)
	if err != nil || len(all) != 8 {
		t.Fatalf("unfiltered read: %d rows, %v", len(all), err)
	}
}
