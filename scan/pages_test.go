package scan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// pageColumnsFixture: id is the row number; the others are sorted-ish
// (so pages differ), with NULLs (a whole NULL page in i64), NaN, negative
// numbers, empty strings, pre-1970 dates and timestamps, uint64 values
// above MaxInt64. (arrow-go never writes a page of only NULLs: NULLs do
// not count towards a page's size.)
var pageSchema = &schema.Schema{ID: 1, Columns: []schema.Column{
	{ID: 1, Name: "id", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
	{ID: 2, Name: "i64", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
	{ID: 3, Name: "i32", Type: schema.Type{Kind: schema.Int32}, Nullable: true},
	{ID: 4, Name: "u64", Type: schema.Type{Kind: schema.Uint64}, Nullable: true},
	{ID: 5, Name: "b", Type: schema.Type{Kind: schema.Bool}, Nullable: true},
	{ID: 6, Name: "f64", Type: schema.Type{Kind: schema.Float64}, Nullable: true},
	{ID: 7, Name: "dec", Type: schema.Type{Kind: schema.Decimal, Precision: 12, Scale: 2}, Nullable: true},
	{ID: 8, Name: "s", Type: schema.Type{Kind: schema.String}, Nullable: true},
	{ID: 9, Name: "d", Type: schema.Type{Kind: schema.Date}, Nullable: true},
	{ID: 10, Name: "ts", Type: schema.Type{Kind: schema.Timestamp}, Nullable: true},
}}

const (
	pageRows   = 24_576
	pageRGRows = 8192
)

// pageFixture holds the written values in the comparison domain (nil:
// NULL), by column then row.
type pageFixture struct {
	store *local.Store
	file  manifest.DataFile
	vals  [][]any
}

func writePageFixture(t *testing.T) *pageFixture {
	t.Helper()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(7, 7))
	fx := &pageFixture{store: store, vals: make([][]any, len(pageSchema.Columns))}
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(pageSchema))
	defer b.Release()
	null := func(j int, p float64) bool {
		if rnd.Float64() < p {
			b.Field(j).AppendNull()
			fx.vals[j] = append(fx.vals[j], nil)
			return true
		}
		return false
	}
	for r := int64(0); r < pageRows; r++ {
		b.Field(0).(*array.Int64Builder).Append(r)
		fx.vals[0] = append(fx.vals[0], r)
		if r >= 2048 && r < 4096 || !null(1, 0.05) {
			if r >= 2048 && r < 4096 {
				b.Field(1).AppendNull()
				fx.vals[1] = append(fx.vals[1], nil)
			} else {
				v := r - 12_000 + rnd.Int64N(50)
				b.Field(1).(*array.Int64Builder).Append(v)
				fx.vals[1] = append(fx.vals[1], v)
			}
		}
		if !null(2, 0.1) {
			v := int32(rnd.IntN(101) - 50)
			b.Field(2).(*array.Int32Builder).Append(v)
			fx.vals[2] = append(fx.vals[2], int64(v))
		}
		if !null(3, 0.02) {
			v := uint64(r * 3)
			if r >= 2*pageRGRows {
				v += 1 << 63
			}
			b.Field(3).(*array.Uint64Builder).Append(v)
			fx.vals[3] = append(fx.vals[3], domainValue(pageSchema.Columns[3].Type, v))
		}
		if !null(4, 0.01) {
			v := (r/5000)%2 == 0
			b.Field(4).(*array.BooleanBuilder).Append(v)
			fx.vals[4] = append(fx.vals[4], domainValue(pageSchema.Columns[4].Type, v))
		}
		if !null(5, 0.03) {
			v := float64(r-12_000) / 7
			if rnd.Float64() < 0.02 {
				v = math.NaN()
			}
			b.Field(5).(*array.Float64Builder).Append(v)
			fx.vals[5] = append(fx.vals[5], v)
		}
		if !null(6, 0.03) {
			v := (r - 12_000) * 37
			b.Field(6).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
			fx.vals[6] = append(fx.vals[6], decimal.New(v, -2))
		}
		if !null(7, 0.05) {
			v := fmt.Sprintf("%06d", r+rnd.Int64N(30))
			if r < 1500 {
				v = ""
			}
			b.Field(7).(*array.StringBuilder).Append(v)
			fx.vals[7] = append(fx.vals[7], v)
		}
		if r >= 1000 || !null(8, 0.5) { // NULLs in the first page only
			v := int32(r/10 - 1500) // from 1965-11-23
			b.Field(8).(*array.Date32Builder).Append(arrow.Date32(v))
			fx.vals[8] = append(fx.vals[8], int64(v)*86400*1e6)
		}
		if !null(9, 0.02) {
			v := (r - 12_000) * 1_000_000_007
			b.Field(9).(*array.TimestampBuilder).Append(arrow.Timestamp(v))
			fx.vals[9] = append(fx.vals[9], v)
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	fx.file, err = datafile.Write(context.Background(), store, "t/data/pages.parquet", pageSchema, []arrow.Record{rec},
		datafile.WriteOptions{RowGroupRows: pageRGRows, DataPageBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// matches is the reference: whether value v satisfies p the way the
// engine's filter decides it (NULL satisfies no comparison; GMS compares
// NaN as matching).
func matches(v any, p Predicate) bool {
	switch p.Op {
	case OpIsNull:
		return v == nil
	case OpNotNull:
		return v != nil
	}
	if v == nil {
		return false
	}
	if f, ok := v.(float64); ok && math.IsNaN(f) {
		return true
	}
	for _, lit := range p.Values {
		c, ok := compare(v, lit)
		if !ok {
			return true // incomparable: the reference cannot rule it out
		}
		switch p.Op {
		case OpEq, OpIn:
			if c == 0 {
				return true
			}
		case OpLt:
			return c < 0
		case OpLe:
			return c <= 0
		case OpGt:
			return c > 0
		case OpGe:
			return c >= 0
		}
	}
	return false
}

// randomPredicate draws a predicate on column j with literals taken from
// the data (or just outside it).
func randomPredicate(rnd *rand.Rand, fx *pageFixture, j int) Predicate {
	c := pageSchema.Columns[j]
	p := Predicate{FieldID: c.ID, Type: c.Type, Op: Op(rnd.IntN(int(OpNotNull) + 1))}
	if p.Op == OpIsNull || p.Op == OpNotNull {
		return p
	}
	n := 1
	if p.Op == OpIn {
		n = 1 + rnd.IntN(4)
	}
	for len(p.Values) < n {
		v := fx.vals[j][rnd.IntN(pageRows)]
		if f, ok := v.(float64); v == nil || ok && math.IsNaN(f) {
			continue
		}
		p.Values = append(p.Values, v)
	}
	return p
}

type pageRead struct {
	pp  pagePruning
	ids map[int64]bool
}

// readPruned reads the fixture as the scans do: row groups by footer
// stats, then pages by the page index; it checks the values read against
// the fixture.
func readPruned(t *testing.T, fx *pageFixture, preds []Predicate, batch int64) pageRead {
	t.Helper()
	ids := make([]int, len(pageSchema.Columns))
	for j, c := range pageSchema.Columns {
		ids[j] = c.ID
	}
	r, err := datafile.OpenWith(context.Background(), fx.store, fx.file, pageSchema, ids, datafile.ReadOptions{BatchRows: batch})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stats, cols := r.RowGroupStats(), predicateColumns(preds, ids)
	keep, _ := keepRowGroups(r, stats, preds, cols)
	if err := r.SelectRowGroups(keep); err != nil {
		t.Fatal(err)
	}
	pp, err := selectPages(r, stats, keep, preds, cols)
	if err != nil {
		t.Fatal(err)
	}
	out := pageRead{pp: pp, ids: map[int64]bool{}}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		idc, i64 := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64)
		for i := 0; i < int(rec.NumRows()); i++ {
			id := idc.Value(i)
			want := fx.vals[1][id]
			if (want == nil) != i64.IsNull(i) || want != nil && want != i64.Value(i) {
				t.Fatalf("row %d read i64 %v, wrote %v", id, i64.Value(i), want)
			}
			out.ids[id] = true
		}
		rec.Release()
	}
	if got := int64(len(out.ids)); got != pp.rows-pp.skipped {
		t.Fatalf("read %d rows, the page ranges hold %d", got, pp.rows-pp.skipped)
	}
	return out
}

// TestPagePruning_NeverDropsAMatch: over random conjunctions on every
// predicate type, every row the reference filter passes is read; and the
// page index does rule rows out.
func TestPagePruning_NeverDropsAMatch(t *testing.T) {
	fx := writePageFixture(t)
	rnd := rand.New(rand.NewPCG(1, 2))
	var skipped int64
	for trial := 0; trial < 300; trial++ {
		var preds []Predicate
		for k := 0; k < 1+rnd.IntN(3); k++ {
			preds = append(preds, randomPredicate(rnd, fx, 1+rnd.IntN(len(pageSchema.Columns)-1)))
		}
		got := readPruned(t, fx, preds, 1+rnd.Int64N(5000))
		skipped += got.pp.skipped
		for row := int64(0); row < pageRows; row++ {
			ok := true
			for _, p := range preds {
				j := p.FieldID - 1
				ok = ok && matches(fx.vals[j][row], p)
			}
			if ok && !got.ids[row] {
				t.Fatalf("trial %d: %+v: row %d matches but was pruned (values %v)", trial, preds, row, rowValues(fx, row))
			}
		}
	}
	if skipped == 0 {
		t.Fatal("the page index pruned no row in any trial")
	}
}

func rowValues(fx *pageFixture, row int64) []any {
	out := make([]any, len(fx.vals))
	for j := range fx.vals {
		out[j] = fx.vals[j][row]
	}
	return out
}

// TestPagePruning_SelectiveRange: a narrow range on the sorted id column
// reads one or two pages of one row group, and every matching row.
func TestPagePruning_SelectiveRange(t *testing.T) {
	fx := writePageFixture(t)
	id := pageSchema.Columns[0]
	preds := []Predicate{
		{FieldID: id.ID, Type: id.Type, Op: OpGe, Values: []any{int64(10_000)}},
		{FieldID: id.ID, Type: id.Type, Op: OpLe, Values: []any{int64(10_010)}},
	}
	got := readPruned(t, fx, preds, 64*1024)
	if got.pp.rows != pageRGRows {
		t.Fatalf("footer stats kept %d rows, want one row group of %d", got.pp.rows, pageRGRows)
	}
	if read := got.pp.rows - got.pp.skipped; read == 0 || read > 2*1024 {
		t.Fatalf("page index left %d of %d rows (skipped %d), want one or two pages", read, got.pp.rows, got.pp.skipped)
	}
	for row := int64(10_000); row <= 10_010; row++ {
		if !got.ids[row] {
			t.Fatalf("row %d pruned", row)
		}
	}
	// IS NULL reads the one page of d with NULLs (null counts per page).
	bc := pageSchema.Columns[8]
	got = readPruned(t, fx, []Predicate{{FieldID: bc.ID, Type: bc.Type, Op: OpIsNull}}, 4096)
	if read := got.pp.rows - got.pp.skipped; read == 0 || read > 1024 {
		t.Fatalf("IS NULL read %d rows of %d, want the first page", read, got.pp.rows)
	}
	// A float predicate prunes no page (NaN).
	f64 := pageSchema.Columns[5]
	got = readPruned(t, fx, []Predicate{{FieldID: f64.ID, Type: f64.Type, Op: OpEq, Values: []any{1.0}}}, 4096)
	if got.pp.skipped != 0 {
		t.Fatalf("a float predicate skipped %d rows", got.pp.skipped)
	}
}

func TestIntersectRanges(t *testing.T) {
	r := func(xs ...int64) []datafile.RowRange {
		var out []datafile.RowRange
		for i := 0; i < len(xs); i += 2 {
			out = append(out, datafile.RowRange{Start: xs[i], End: xs[i+1]})
		}
		return out
	}
	cases := []struct{ a, b, want []datafile.RowRange }{
		{r(0, 10), r(0, 10), r(0, 10)},
		{r(0, 10), r(10, 20), nil},
		{r(0, 10, 20, 30), r(5, 25), r(5, 10, 20, 25)},
		{r(0, 100), r(1, 2, 3, 4, 99, 100), r(1, 2, 3, 4, 99, 100)},
		{nil, r(0, 5), nil},
	}
	for _, c := range cases {
		got := intersect(c.a, c.b)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("intersect(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestPagePruning_DamagedIndex: a row group whose page index cannot be
// decoded is read whole (every matching row still comes back) and the
// pruning reports it.
func TestPagePruning_DamagedIndex(t *testing.T) {
	ctx := context.Background()
	fx := writePageFixture(t)
	data, err := fx.store.Get(ctx, fx.file.Path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	loc, ok := pf.MetaData().RowGroup(1).ColumnIndexLocation(0)
	pf.Close()
	if !ok {
		t.Fatal("row group 1 column id has no column index")
	}
	for i := loc.Offset; i < loc.Offset+int64(loc.Length); i++ {
		data[i] = 0xFF
	}
	fx.file.Path = "t/data/damaged.parquet"
	if err := fx.store.Put(ctx, fx.file.Path, bytes.NewReader(data), blob.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	id := pageSchema.Columns[0]
	got := readPruned(t, fx, []Predicate{
		{FieldID: id.ID, Type: id.Type, Op: OpGe, Values: []any{int64(10_000)}},
		{FieldID: id.ID, Type: id.Type, Op: OpLe, Values: []any{int64(10_010)}},
	}, 4096)
	if got.pp.unreadable != 1 || got.pp.skipped != 0 {
		t.Fatalf("unreadable %d, skipped %d rows: want the damaged row group reported and read whole", got.pp.unreadable, got.pp.skipped)
	}
	for row := int64(10_000); row <= 10_010; row++ {
		if !got.ids[row] {
			t.Fatalf("row %d not read", row)
		}
	}
}
