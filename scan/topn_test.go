package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

var topNSchema = &schema.Schema{Columns: []schema.Column{
	{ID: 1, Name: "g", Type: schema.Type{Kind: schema.Int32}, Nullable: true},
	{ID: 2, Name: "d", Type: schema.Type{Kind: schema.Decimal, Precision: 10, Scale: 2}, Nullable: true},
	{ID: 3, Name: "s", Type: schema.Type{Kind: schema.String}, Nullable: true},
	{ID: 4, Name: "x", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
}}

// gmsTypes are the GMS types of topNSchema's columns, for the reference.
var gmsTypes = []sql.Type{types.Int32, types.MustCreateDecimalType(10, 2), types.LongText, types.Int64}

// writeTopNFiles writes nfiles files of rows with row groups of rgRows;
// g grows with the row number when sorted is set (so footer bounds
// separate the row groups), else it is random in a small domain.
func writeTopNFiles(t *testing.T, store blob.Store, prefix string, nfiles, rows int, rgRows int64, sorted bool) []manifest.DataFile {
	t.Helper()
	rng := rand.New(rand.NewSource(3))
	var files []manifest.DataFile
	n := 0
	for fi := range nfiles {
		b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(topNSchema))
		for range rows {
			g, d, s, x := b.Field(0).(*array.Int32Builder), b.Field(1).(*array.Decimal128Builder), b.Field(2).(*array.StringBuilder), b.Field(3).(*array.Int64Builder)
			switch {
			case sorted:
				g.Append(int32(n / 3))
			case rng.Intn(7) == 0:
				g.AppendNull()
			default:
				g.Append(int32(rng.Intn(9) - 4))
			}
			if rng.Intn(5) == 0 {
				d.AppendNull()
			} else {
				d.Append(decimal128.FromI64(int64(rng.Intn(11)-5) * 25))
			}
			s.Append([]string{"", "a", "b", "ab", "é"}[rng.Intn(5)])
			x.Append(int64(n))
			n++
		}
		rec := b.NewRecord()
		b.Release()
		f, err := datafile.Write(context.Background(), store, fmt.Sprintf("%s/data/f%02d.parquet", prefix, fi), topNSchema, []arrow.Record{rec}, datafile.WriteOptions{RowGroupRows: rgRows})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// referenceTopN is GMS's own answer: every row in scan order, sorted by
// sort.Stable with GMS's Sorter, then sliced.
func referenceTopN(t *testing.T, store blob.Store, files []manifest.DataFile, keys []TopNKey, out []int, limit, offset int) []sql.Row {
	return referenceTopNWhere(t, store, files, keys, out, limit, offset, nil)
}

// referenceTopNWhere is referenceTopN over the rows keep accepts (nil:
// all).
func referenceTopNWhere(t *testing.T, store blob.Store, files []manifest.DataFile, keys []TopNKey, out []int, limit, offset int, keep func(sql.Row) bool) []sql.Row {
	t.Helper()
	all, err := ReadAll(context.Background(), Request{Store: store, Files: files, Schema: topNSchema, FieldIDs: []int{1, 2, 3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if keep != nil {
		all = slices.DeleteFunc(all, func(r sql.Row) bool { return !keep(r) })
	}
	var fields sql.SortFields
	for _, k := range keys {
		c, _ := topNSchema.ByID(k.FieldID)
		sf := sql.SortField{Column: expression.NewGetField(c.ID-1, gmsTypes[c.ID-1], c.Name, true), Order: sql.Ascending, NullOrdering: sql.NullsFirst}
		if k.Desc {
			sf.Order = sql.Descending
		}
		fields = append(fields, sf)
	}
	sorter := &expression.Sorter{SortFields: fields, Rows: all, Ctx: sql.NewEmptyContext()}
	sort.Stable(sorter)
	if sorter.LastError != nil {
		t.Fatal(sorter.LastError)
	}
	lo, hi := min(offset, len(all)), min(offset+limit, len(all))
	var res []sql.Row
	for _, r := range all[lo:hi] {
		o := make(sql.Row, len(out))
		for j, id := range out {
			o[j] = r[id-1]
		}
		res = append(res, o)
	}
	return res
}

func renderRows(rows []sql.Row) string {
	var sb strings.Builder
	for _, r := range rows {
		for _, v := range r {
			fmt.Fprintf(&sb, "%T:%v|", v, v)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestTopN_MatchesGMSSort: over files of several row groups, with and
// without footer bounds that let row groups be skipped, the top-N equals
// GMS's stable sort of every row (NULLs first ascending, last
// descending; ties in scan order).
func TestTopN_MatchesGMSSort(t *testing.T) {
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	random := writeTopNFiles(t, store, "r", 5, 40, 7, false)
	sorted := writeTopNFiles(t, store, "s", 3, 50, 6, true)
	for _, c := range []struct {
		name          string
		files         []manifest.DataFile
		keys          []TopNKey
		out           []int
		limit, offset int
		skips         bool // the bounds must spare some row groups
	}{
		{"g", random, []TopNKey{{FieldID: 1, NullsFirst: true}}, []int{4, 1, 3}, 10, 0, false},
		{"g desc", random, []TopNKey{{FieldID: 1, Desc: true}}, []int{1, 4}, 25, 0, false},
		{"d desc, s", random, []TopNKey{{FieldID: 2, Desc: true}, {FieldID: 3, NullsFirst: true}}, []int{2, 3, 4}, 12, 5, false},
		{"s, g desc", random, []TopNKey{{FieldID: 3, NullsFirst: true}, {FieldID: 1, Desc: true}}, []int{3, 1, 2, 4}, 30, 0, false},
		{"all rows", random, []TopNKey{{FieldID: 2, NullsFirst: true}}, []int{2, 4}, 1000, 0, false},
		{"past the end", random, []TopNKey{{FieldID: 2, NullsFirst: true}}, []int{2}, 10, 500, false},
		{"sorted g", sorted, []TopNKey{{FieldID: 1, NullsFirst: true}}, []int{4, 1}, 8, 0, false},
		{"sorted g desc", sorted, []TopNKey{{FieldID: 1, Desc: true}}, []int{4, 1, 3}, 8, 1, true},
		{"sorted g desc, x", sorted, []TopNKey{{FieldID: 1, Desc: true}, {FieldID: 4, NullsFirst: true}}, []int{2}, 4, 0, true},
		{"sorted g, x desc", sorted, []TopNKey{{FieldID: 1, NullsFirst: true}, {FieldID: 4, Desc: true}}, []int{4}, 5, 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, ok := CompileTopN(topNSchema, nil, c.keys, c.out, int64(c.limit), int64(c.offset))
			if !ok {
				t.Fatal("not compiled")
			}
			for _, par := range []int{1, 3} {
				rows, st, err := p.Run(context.Background(), TopNInput{Store: store, Files: c.files, Parallelism: par})
				if err != nil {
					t.Fatal(err)
				}
				if c.skips && par == 1 && (st.FilesRead == st.Files && st.RowGroupsRead == st.RowGroups) {
					t.Errorf("read every file and row group (%+v): the bounds spared nothing", st)
				}
				got, want := renderRows(rows), renderRows(referenceTopN(t, store, c.files, c.keys, c.out, c.limit, c.offset))
				if got != want {
					t.Errorf("parallelism %d:\ngot:\n%s\nwant:\n%s", par, got, want)
				}
			}
		})
	}
}

// TestTopN_MayEnter: with a threshold (the worst first key of a full
// heap) of 10, a row group can be skipped only when its bounds put every row strictly after
// 10 (NULLs count by where they sort).
func TestTopN_MayEnter(t *testing.T) {
	for _, c := range []struct {
		name     string
		key      TopNKey
		min, max any
		nulls    int64
		want     bool
	}{
		{"asc above", TopNKey{FieldID: 1, NullsFirst: true}, int64(11), int64(20), 0, false},
		{"asc tie", TopNKey{FieldID: 1, NullsFirst: true}, int64(10), int64(20), 0, true},
		{"asc below", TopNKey{FieldID: 1, NullsFirst: true}, int64(3), int64(20), 0, true},
		{"asc NULLs first", TopNKey{FieldID: 1, NullsFirst: true}, int64(11), int64(20), 2, true},
		{"asc unknown NULLs", TopNKey{FieldID: 1, NullsFirst: true}, int64(11), int64(20), -1, true},
		{"desc below", TopNKey{FieldID: 1, Desc: true}, int64(0), int64(9), 4, false},
		{"desc tie", TopNKey{FieldID: 1, Desc: true}, int64(0), int64(10), 0, true},
		{"desc no bounds", TopNKey{FieldID: 1, Desc: true}, nil, nil, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, ok := CompileTopN(topNSchema, nil, []TopNKey{c.key}, []int{1}, 1, 0)
			if !ok {
				t.Fatal("not compiled")
			}
			b := rowGroupBounds(topNSchema.Columns[0].Type, datafile.ColumnStats{FieldID: 1, NullCount: c.nulls, Min: c.min, Max: c.max})
			if got := p.mayEnter(keyVal{i: 10}, true, b); got != c.want {
				t.Errorf("mayEnter = %v, want %v", got, c.want)
			}
		})
	}
}

// TestTopN_NaNKeyNeedsRowPath: a NaN in a float sort key is
// ErrTopNRowPath, not an answer.
func TestTopN_NaNKeyNeedsRowPath(t *testing.T) {
	ctx := context.Background()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &schema.Schema{Columns: []schema.Column{{ID: 1, Name: "f", Type: schema.Type{Kind: schema.Float64}, Nullable: true}}}
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(s))
	b.Field(0).(*array.Float64Builder).AppendValues([]float64{1, 2, nan(), 0}, nil)
	rec := b.NewRecord()
	b.Release()
	defer rec.Release()
	f, err := datafile.Write(ctx, store, "n/data/f.parquet", s, []arrow.Record{rec}, datafile.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := CompileTopN(s, nil, []TopNKey{{FieldID: 1, NullsFirst: true}}, []int{1}, 2, 0)
	if !ok {
		t.Fatal("not compiled")
	}
	if _, _, err := p.Run(ctx, TopNInput{Store: store, Files: []manifest.DataFile{f}}); !errors.Is(err, ErrTopNRowPath) {
		t.Fatalf("err = %v, want ErrTopNRowPath", err)
	}
}

func nan() float64 {
	var zero float64
	return zero / zero
}

// countingStore counts the objects read.
type countingStore struct {
	blob.Store
	mu   sync.Mutex
	read map[string]bool
}

func (c *countingStore) ReadAt(ctx context.Context, key string, p []byte, off int64) (int, error) {
	c.mu.Lock()
	c.read[key] = true
	c.mu.Unlock()
	return c.Store.ReadAt(ctx, key, p, off)
}

func (c *countingStore) files() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.read)
}

// TestRowIter_LimitReadsOnlyWhatItReturns: with a Limit the iterator
// returns that many rows, in scan order, and opens only the files they
// come from.
func TestRowIter_LimitReadsOnlyWhatItReturns(t *testing.T) {
	dir := t.TempDir()
	base, err := local.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := writeTopNFiles(t, base, "t", 4, 40, 7, false)
	for _, c := range []struct {
		limit     int64
		wantRows  int
		wantFiles int
	}{{5, 5, 1}, {40, 40, 1}, {41, 41, 2}, {1000, 160, 4}} {
		store := &countingStore{Store: base, read: map[string]bool{}}
		it := NewRowIter(context.Background(), Request{Store: store, Files: files, Schema: topNSchema, FieldIDs: []int{4, 3}, Limit: c.limit})
		ctx := sql.NewEmptyContext()
		var got []int64
		for {
			r, err := it.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r[0].(int64))
		}
		it.Close(ctx)
		if len(got) != c.wantRows {
			t.Errorf("limit %d: %d rows, want %d", c.limit, len(got), c.wantRows)
		}
		for i, x := range got {
			if x != int64(i) {
				t.Fatalf("limit %d: row %d is x=%d: not scan order", c.limit, i, x)
			}
		}
		if n := store.files(); n != c.wantFiles {
			t.Errorf("limit %d: read %d files, want %d", c.limit, n, c.wantFiles)
		}
	}
}

// TestRowIter_LimitWithFiltersDoesNotCap: with Filters the iterator cannot
// count the rows the consumer keeps, so it returns every row it is asked
// for.
func TestRowIter_LimitWithFiltersDoesNotCap(t *testing.T) {
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := writeTopNFiles(t, store, "t", 3, 40, 7, false)
	filter := expression.NewGreaterThanOrEqual(
		expression.NewGetFieldWithTable(0, 1, types.Int64, "d", "t", "x", true),
		expression.NewLiteral(int64(0), types.Int64))
	it := NewRowIter(context.Background(), Request{Store: store, Files: files, Schema: topNSchema, FieldIDs: []int{4}, Filters: []sql.Expression{filter}, Limit: 5})
	ctx := sql.NewEmptyContext()
	defer it.Close(ctx)
	n := 0
	for {
		_, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 120 {
		t.Errorf("%d rows, want all 120", n)
	}
}

// TestRowIter_CloseStopsReaders: closing the parallel iterator after one
// row leaves no reader goroutine behind.
func TestRowIter_CloseStopsReaders(t *testing.T) {
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := writeTopNFiles(t, store, "t", 12, 300, 50, false)
	before := runtime.NumGoroutine()
	it := NewRowIter(context.Background(), Request{Store: store, Files: files, Schema: topNSchema, FieldIDs: []int{1, 2, 3, 4}, Parallelism: 3})
	ctx := sql.NewEmptyContext()
	if _, err := it.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if err := it.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// Close waited for the readers; allow the runtime a moment for its own.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}

// TestTopN_PagePruning: a filtered top-N reads only the pages its filter
// may match (first pass) and the pages holding its winners (second), and
// returns what GMS's sort of the filtered rows does.
func TestTopN_PagePruning(t *testing.T) {
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := writeTopNFiles(t, store, "p", 2, 20000, 20000, false) // x is the row number
	x := expression.NewGetFieldWithTable(3, 1, types.Int64, "d", "t", "x", true)
	filter := expression.NewBetween(x, expression.NewLiteral(int64(5000), types.Int64), expression.NewLiteral(int64(8000), types.Int64))
	keys := []TopNKey{{FieldID: 2, Desc: true}, {FieldID: 3, NullsFirst: true}, {FieldID: 4, NullsFirst: true}}
	p, ok := CompileTopN(topNSchema, []sql.Expression{filter}, keys, []int{4, 2, 3}, 7, 2)
	if !ok {
		t.Fatal("not compiled")
	}
	rows, st, err := p.Run(context.Background(), TopNInput{Store: store, Files: files, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows == 0 || st.RowsSkipped < st.Rows/2 {
		t.Errorf("page index skipped %d of %d rows; the filter keeps 3001 of 20000", st.RowsSkipped, st.Rows)
	}
	want := referenceTopNWhere(t, store, files, keys, []int{4, 2, 3}, 7, 2, func(r sql.Row) bool {
		v := r[3].(int64)
		return v >= 5000 && v <= 8000
	})
	if got, want := renderRows(rows), renderRows(want); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
