package scan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// dictSchema: an id, then a column of each type dictionaries decide, and
// a float, which they never do.
var dictSchema = &schema.Schema{ID: 1, Columns: []schema.Column{
	{ID: 1, Name: "id", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
	{ID: 2, Name: "s", Type: schema.Type{Kind: schema.String}, Nullable: true},
	{ID: 3, Name: "i", Type: schema.Type{Kind: schema.Int32}, Nullable: true},
	{ID: 4, Name: "d", Type: schema.Type{Kind: schema.Date}, Nullable: true},
	{ID: 5, Name: "dec", Type: schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 2}, Nullable: true},
	{ID: 6, Name: "f", Type: schema.Type{Kind: schema.Float64}, Nullable: true},
}}

const (
	dictRGs    = 4
	dictRGRows = 300
)

// writeDictFixture writes dictRGs row groups in which every column holds
// its low and its high value (so every row group has the same min/max)
// and a middle value of the row group's own (k is the row group): s "a",
// "z", "m<k>"; i -100, 100, 10k; d day -1000, 1000, k; dec -1.00, 1.00,
// 0.k5; f -1, 1, k/2. Every 7th row is NULL but for its id.
func writeDictFixture(t *testing.T) (*local.Store, manifest.DataFile) {
	t.Helper()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(dictSchema))
	defer b.Release()
	for r := 0; r < dictRGs*dictRGRows; r++ {
		k, which := r/dictRGRows, r%3
		b.Field(0).(*array.Int64Builder).Append(int64(r))
		if r%7 == 0 {
			for j := 1; j < len(dictSchema.Columns); j++ {
				b.Field(j).AppendNull()
			}
			continue
		}
		pick := func(lo, hi, mid int64) int64 { return []int64{lo, hi, mid}[which] }
		s := []string{"a", "z", fmt.Sprintf("m%d", k)}[which]
		b.Field(1).(*array.StringBuilder).Append(s)
		b.Field(2).(*array.Int32Builder).Append(int32(pick(-100, 100, int64(10*k))))
		b.Field(3).(*array.Date32Builder).Append(arrow.Date32(pick(-1000, 1000, int64(k))))
		b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(pick(-100, 100, int64(10*k+5))))
		b.Field(5).(*array.Float64Builder).Append(float64(pick(-2, 2, int64(k))) / 2)
	}
	rec := b.NewRecord()
	defer rec.Release()
	f, err := datafile.Write(context.Background(), store, "t/data/dict.parquet", dictSchema, []arrow.Record{rec},
		datafile.WriteOptions{RowGroupRows: dictRGRows})
	if err != nil {
		t.Fatal(err)
	}
	return store, f
}

// field is a GetField of dictSchema's column j, as read with every column.
func field(j int) sql.Expression {
	c := dictSchema.Columns[j]
	typ := map[schema.Kind]sql.Type{
		schema.Int64: types.Int64, schema.String: types.Text, schema.Int32: types.Int32,
		schema.Date: types.Date, schema.Decimal: types.MustCreateDecimalType(9, 2), schema.Float64: types.Float64,
	}[c.Type.Kind]
	return expression.NewGetFieldWithTable(j, 1, typ, "d", "t", c.Name, true)
}

func dlit(v any) sql.Expression {
	switch x := v.(type) {
	case string:
		return expression.NewLiteral(x, types.Text)
	case int64:
		return expression.NewLiteral(x, types.Int64)
	case float64:
		return expression.NewLiteral(x, types.Float64)
	case time.Time:
		return expression.NewLiteral(x, types.Date)
	case decimal.Decimal:
		return expression.NewLiteral(x, types.MustCreateDecimalType(9, 2))
	}
	panic(fmt.Sprintf("no literal for %T", v))
}

func eq(j int, v any) sql.Expression { return expression.NewEquals(field(j), dlit(v)) }

func in(j int, vs ...any) sql.Expression {
	tup := make([]sql.Expression, len(vs))
	for i, v := range vs {
		tup[i] = dlit(v)
	}
	return expression.NewInTuple(field(j), expression.NewTuple(tup...))
}

func day(n int) time.Time { return time.Unix(int64(n)*86400, 0).UTC() }

// passing is the ids of rows passing filter, as GMS evaluates it.
func passing(t *testing.T, rows []sql.Row, filter sql.Expression) []int64 {
	t.Helper()
	ctx := sql.NewEmptyContext()
	var ids []int64
	for _, row := range rows {
		ok, err := sql.EvaluateCondition(ctx, filter, row)
		if err != nil {
			t.Fatal(err)
		}
		if sql.IsTrue(ok) {
			ids = append(ids, row[0].(int64))
		}
	}
	return ids
}

// TestDictFilter_RowGroups: values inside every row group's min/max but
// in only some row groups' dictionaries read only those row groups, in
// the row path and the vectorised aggregate (Stats count the row groups
// the dictionaries ruled out), with the rows of a full read; floats, a
// value in every dictionary and range predicates prune nothing by
// dictionary.
func TestDictFilter_RowGroups(t *testing.T) {
	ctx := context.Background()
	store, f := writeDictFixture(t)
	ids := []int{1, 2, 3, 4, 5, 6}
	full, err := readFile(ctx, Request{Store: store, Schema: dictSchema, FieldIDs: ids}, f)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		filter sql.Expression
		read   int // row groups read
	}{
		{"s = m2", eq(1, "m2"), 1},
		{"s IN (m1, m3)", in(1, "m1", "m3"), 2},
		{"s IN (m1, nope)", in(1, "m1", "nope"), 1},
		{"s = b: in range, in no dictionary", eq(1, "b"), 0},
		{"s = a: in every dictionary", eq(1, "a"), dictRGs},
		{"int32 column, int64 literal", eq(2, int64(20)), 1},
		{"i IN (0, 30, 55)", in(2, int64(0), int64(30), int64(55)), 2},
		{"date", eq(3, day(3)), 1},
		{"decimal", eq(4, decimal.RequireFromString("0.15")), 1},
		{"decimal 0.150", eq(4, decimal.RequireFromString("0.150")), 1},
		{"float: never by dictionary", eq(5, 0.5), dictRGs},
		{"s = m2 AND i = 30: two row groups, none both", expression.NewAnd(eq(1, "m2"), eq(2, int64(30))), 0},
		{"s > m2: not an equality", expression.NewGreaterThan(field(1), dlit("m2")), dictRGs},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := passing(t, full, c.filter)
			rows, err := readFile(ctx, Request{Store: store, Schema: dictSchema, FieldIDs: ids, Filters: []sql.Expression{c.filter}}, f)
			if err != nil {
				t.Fatal(err)
			}
			if got := passing(t, rows, c.filter); !slices.Equal(got, want) {
				t.Fatalf("row path: %d rows pass, a full read has %d", len(got), len(want))
			}
			if len(rows) > c.read*dictRGRows {
				t.Fatalf("row path read %d rows, want at most %d row groups", len(rows), c.read)
			}
			p, ok := CompileAggregate(dictSchema, []sql.Expression{c.filter}, nil, []AggSpec{{Kind: AggCountStar}})
			if !ok {
				t.Fatal("not vectorised")
			}
			res, st, err := p.Run(ctx, AggInput{Store: store, Files: []manifest.DataFile{f}})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(res[0][0]) != fmt.Sprint(len(want)) {
				t.Fatalf("COUNT(*) = %v, a full read passes %d", res[0][0], len(want))
			}
			if st.RowGroupsRead != c.read || st.RowGroupsRead+st.RowGroupsDictPruned != st.RowGroups {
				t.Fatalf("read %d row groups, dictionaries ruled out %d of %d; want %d read", st.RowGroupsRead, st.RowGroupsDictPruned, st.RowGroups, c.read)
			}
		})
	}
}

// TestDictFilter_PlainFallback: a row group whose dictionary outgrew the
// writer's limit holds later values in PLAIN pages only: a value there
// (inside min/max, not in the dictionary) still reads its row group.
func TestDictFilter_PlainFallback(t *testing.T) {
	ctx := context.Background()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &schema.Schema{ID: 1, Columns: []schema.Column{
		{ID: 1, Name: "id", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
		{ID: 2, Name: "s", Type: schema.Type{Kind: schema.String}, Nullable: true},
	}}
	const n = 2000
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	defer ib.Release()
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	defer sb.Release()
	for r := 0; r < n; r++ {
		ib.Append(int64(r))
		switch r {
		case 0:
			sb.Append("a")
		case n - 1:
			sb.Append("m-late") // written long after the fallback
		default:
			sb.Append(fmt.Sprintf("b%020d", r))
		}
	}
	ia, sa := ib.NewArray(), sb.NewArray()
	defer ia.Release()
	defer sa.Release()
	as := datafile.ArrowSchema(s)
	rec := array.NewRecord(as, []arrow.Array{ia, sa}, n)
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithDictionaryPageSizeLimit(4<<10), parquet.WithDataPageSize(1<<10))
	fw, err := pqarrow.NewFileWriter(as, &buf, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := store.Put(ctx, "t/data/fallback.parquet", &buf, blob.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := datafile.ReadFooter(ctx, store, "t/data/fallback.parquet", 0, s)
	if err != nil {
		t.Fatal(err)
	}
	filter := expression.NewEquals(expression.NewGetFieldWithTable(1, 1, types.Text, "d", "t", "s", true), dlit("m-late"))
	p, ok := CompileAggregate(s, []sql.Expression{filter}, nil, []AggSpec{{Kind: AggCountStar}})
	if !ok {
		t.Fatal("not vectorised")
	}
	res, st, err := p.Run(ctx, AggInput{Store: store, Files: []manifest.DataFile{f}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res[0][0]) != "1" || st.RowGroupsRead != 1 || st.RowGroupsDictPruned != 0 {
		t.Fatalf("COUNT(*) = %v, read %d row groups, %d ruled out by dictionary; want 1, 1, 0", res[0][0], st.RowGroupsRead, st.RowGroupsDictPruned)
	}
}

// dictRandSchema is the randomized fixture's: sparse values per row group
// over small universes with negatives, empty strings, pre-1970 dates and
// NaN.
var dictRandSchema = &schema.Schema{ID: 1, Columns: []schema.Column{
	{ID: 1, Name: "id", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
	{ID: 2, Name: "i32", Type: schema.Type{Kind: schema.Int32}, Nullable: true},
	{ID: 3, Name: "i64", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
	{ID: 4, Name: "u16", Type: schema.Type{Kind: schema.Uint16}, Nullable: true},
	{ID: 5, Name: "s", Type: schema.Type{Kind: schema.String}, Nullable: true},
	{ID: 6, Name: "d", Type: schema.Type{Kind: schema.Date}, Nullable: true},
	{ID: 7, Name: "dec", Type: schema.Type{Kind: schema.Decimal, Precision: 12, Scale: 2}, Nullable: true},
	{ID: 8, Name: "f", Type: schema.Type{Kind: schema.Float64}, Nullable: true},
}}

const (
	randRGs    = 8
	randRGRows = 500
	universe   = 10 // distinct values a column draws from
)

// randFixture holds the written values in the comparison domain (nil:
// NULL), by column then row, and each column's universe.
type randFixture struct {
	store    *local.Store
	file     manifest.DataFile
	vals, un [][]any
}

// universeValue is value x of column j's universe, as written (Go value
// for the builder) and in the comparison domain.
func universeValue(j, x int) (written, domain any) {
	switch j {
	case 1:
		return int32(x*x - 40), int64(x*x - 40)
	case 2:
		v := int64(x-5) * 1_000_000_007
		return v, v
	case 3:
		return uint16(x * 7000), int64(x * 7000)
	case 4:
		v := []string{"", "a", "ab", "b", "B", "é", "zz", " ", "a ", "m"}[x]
		return v, v
	case 5:
		v := int32(x*400 - 2000) // from 1964-07-11
		return v, int64(v) * dayMicros
	case 6:
		v := int64(x*125 - 600)
		return v, decimal.New(v, -2)
	}
	v := float64(x-5) / 4
	return v, v
}

func writeRandFixture(t *testing.T, rnd *rand.Rand) *randFixture {
	t.Helper()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fx := &randFixture{store: store, vals: make([][]any, len(dictRandSchema.Columns)), un: make([][]any, len(dictRandSchema.Columns))}
	for j := 1; j < len(dictRandSchema.Columns); j++ {
		for x := 0; x < universe; x++ {
			_, d := universeValue(j, x)
			fx.un[j] = append(fx.un[j], d)
		}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(dictRandSchema))
	defer b.Release()
	for k := 0; k < randRGs; k++ {
		// Each column of the row group draws from a few values of its
		// universe (none: all NULL).
		subset := make([][]int, len(dictRandSchema.Columns))
		for j := range subset {
			subset[j] = rnd.Perm(universe)[:rnd.IntN(5)]
		}
		for r := 0; r < randRGRows; r++ {
			id := int64(k*randRGRows + r)
			b.Field(0).(*array.Int64Builder).Append(id)
			fx.vals[0] = append(fx.vals[0], id)
			for j := 1; j < len(dictRandSchema.Columns); j++ {
				if len(subset[j]) == 0 || rnd.Float64() < 0.1 {
					b.Field(j).AppendNull()
					fx.vals[j] = append(fx.vals[j], nil)
					continue
				}
				x := subset[j][rnd.IntN(len(subset[j]))]
				w, d := universeValue(j, x)
				if j == 7 && rnd.Float64() < 0.01 {
					w, d = nan(), nan()
				}
				appendRand(b.Field(j), w)
				fx.vals[j] = append(fx.vals[j], d)
			}
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	fx.file, err = datafile.Write(context.Background(), store, "t/data/rand.parquet", dictRandSchema, []arrow.Record{rec},
		datafile.WriteOptions{RowGroupRows: randRGRows, DataPageBytes: 512})
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

func appendRand(b array.Builder, v any) {
	switch x := v.(type) {
	case int32:
		if db, ok := b.(*array.Date32Builder); ok {
			db.Append(arrow.Date32(x))
			return
		}
		b.(*array.Int32Builder).Append(x)
	case int64:
		if db, ok := b.(*array.Decimal128Builder); ok {
			db.Append(decimal128.FromI64(x))
			return
		}
		b.(*array.Int64Builder).Append(x)
	case uint16:
		b.(*array.Uint16Builder).Append(x)
	case string:
		b.(*array.StringBuilder).Append(x)
	case float64:
		b.(*array.Float64Builder).Append(x)
	}
}

// randomEqPredicate draws = or IN on column j from its universe (values
// in some row groups, not others), or now and then a range or IS NULL.
func randomEqPredicate(rnd *rand.Rand, fx *randFixture, j int) Predicate {
	c := dictRandSchema.Columns[j]
	p := Predicate{FieldID: c.ID, Type: c.Type, Op: OpEq}
	switch x := rnd.IntN(10); {
	case x < 4:
	case x < 8:
		p.Op = OpIn
	case x < 9:
		p.Op = []Op{OpLt, OpGe}[rnd.IntN(2)]
	default:
		p.Op = OpIsNull
		return p
	}
	n := 1
	if p.Op == OpIn {
		n = 1 + rnd.IntN(4)
	}
	for len(p.Values) < n {
		p.Values = append(p.Values, fx.un[j][rnd.IntN(universe)])
	}
	return p
}

// readRowGroups reads the fixture's row groups kept by keepRowGroups, or
// by the footer stats alone (dict false), and returns the ids of the rows
// read that match every predicate (the reference filter, matches), with
// the count of row groups dictionaries ruled out.
func readRowGroups(t *testing.T, fx *randFixture, preds []Predicate, dict bool) (map[int64]bool, int) {
	t.Helper()
	ids := make([]int, len(dictRandSchema.Columns))
	for j, c := range dictRandSchema.Columns {
		ids[j] = c.ID
	}
	r, err := datafile.Open(context.Background(), fx.store, fx.file, dictRandSchema, ids)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stats, cols := r.RowGroupStats(), predicateColumns(preds, ids)
	keep, pruned := keepRowGroups(r, stats, preds, cols)
	if !dict {
		keep, pruned = nil, 0
		for _, rg := range stats {
			if statsMightMatch(rg, preds, cols) {
				keep = append(keep, rg.RowGroup)
			}
		}
	}
	if err := r.SelectRowGroups(keep); err != nil {
		t.Fatal(err)
	}
	out := map[int64]bool{}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, pruned
		}
		if err != nil {
			t.Fatal(err)
		}
		idc := rec.Column(0).(*array.Int64)
		for i := 0; i < int(rec.NumRows()); i++ {
			id := idc.Value(i)
			ok := true
			for _, p := range preds {
				ok = ok && matches(fx.vals[p.FieldID-1][id], p)
			}
			if ok {
				out[id] = true
			}
		}
		rec.Release()
	}
}

// TestDictFilter_NeverDropsAMatch: over random conjunctions of = and IN
// (and some ranges and IS NULL) on every column type, the rows matching
// are the same with and without dictionary filtering, and so are those
// of every row (the reference); and the dictionaries do rule row groups
// out.
func TestDictFilter_NeverDropsAMatch(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	fx := writeRandFixture(t, rnd)
	ruledOut := 0
	for trial := 0; trial < 300; trial++ {
		var preds []Predicate
		for k := 0; k < 1+rnd.IntN(2); k++ {
			preds = append(preds, randomEqPredicate(rnd, fx, 1+rnd.IntN(len(dictRandSchema.Columns)-1)))
		}
		with, pruned := readRowGroups(t, fx, preds, true)
		without, _ := readRowGroups(t, fx, preds, false)
		ruledOut += pruned
		for row := int64(0); row < randRGs*randRGRows; row++ {
			ok := true
			for _, p := range preds {
				ok = ok && matches(fx.vals[p.FieldID-1][row], p)
			}
			if ok != without[row] {
				t.Fatalf("trial %d: %+v: row %d: matches %v, read without dictionaries %v", trial, preds, row, ok, without[row])
			}
			if ok != with[row] {
				t.Fatalf("trial %d: %+v: row %d matches but its row group was ruled out by a dictionary (values %v)", trial, preds, row, randRow(fx, row))
			}
		}
	}
	if ruledOut == 0 {
		t.Fatal("dictionaries ruled out no row group in any trial")
	}
	t.Logf("dictionaries ruled out %d row groups in 300 trials", ruledOut)
}

func randRow(fx *randFixture, row int64) []any {
	out := make([]any, len(fx.vals))
	for j := range fx.vals {
		out[j] = fx.vals[j][row]
	}
	return out
}

// TestDictFilter_DamagedDictionaryPrunesNothing: a row group whose
// dictionary page cannot be read is kept (the dictionary only spares
// work), and reading it reports the damage.
func TestDictFilter_DamagedDictionaryPrunesNothing(t *testing.T) {
	ctx := context.Background()
	store, f := writeDictFixture(t)
	path := store.LocalPath(f.Path)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	cc, err := pf.MetaData().RowGroup(0).ColumnChunk(1) // s
	pf.Close()
	if err != nil {
		t.Fatal(err)
	}
	ids := []int{1, 2, 3, 4, 5, 6}
	preds := Predicates(dictSchema, []sql.Expression{eq(1, "b")}) // in no dictionary
	for off := cc.DictionaryPageOffset(); off < cc.DataPageOffset(); off++ {
		bad := bytes.Clone(good)
		bad[off] ^= 0xff
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := datafile.Open(ctx, store, f, dictSchema, ids)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := r.RowGroupDictionary(0, 1); err == nil {
			r.Close()
			continue
		}
		stats := r.RowGroupStats()
		keep, pruned := keepRowGroups(r, stats, preds, predicateColumns(preds, ids))
		if pruned != dictRGs-1 || len(keep) != 1 || keep[0] != 0 {
			t.Fatalf("byte %d flipped: kept %v, %d ruled out; want row group 0 kept, the others ruled out", off, keep, pruned)
		}
		if err := r.SelectRowGroups(keep); err != nil {
			t.Fatal(err)
		}
		_, err = r.Next()
		r.Close()
		if !errors.Is(err, datafile.ErrBadFile) {
			t.Fatalf("byte %d flipped: reading the row group: %v, want an error wrapping ErrBadFile", off, err)
		}
		return
	}
	t.Fatal("no flipped byte damaged the dictionary page")
}
