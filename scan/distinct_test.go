package scan

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// distinctCase is a column type and a pool of values (nil: NULL) with
// the ones COUNT(DISTINCT) must tell apart or not: zeros of both signs,
// NaNs, BIGINT UNSIGNED above BIGINT's range, DECIMALs of one scale,
// timestamps differing below a microsecond, strings differing in case.
type distinctCase struct {
	name string
	typ  schema.Type
	dt   arrow.DataType
	sqlT sql.Type
	pool []any
}

func distinctCases() []distinctCase {
	ts := func(unit arrow.TimeUnit) *arrow.TimestampType { return &arrow.TimestampType{Unit: unit} }
	return []distinctCase{
		{"int8", schema.Type{Kind: schema.Int8}, arrow.PrimitiveTypes.Int8, types.Int8,
			[]any{nil, int8(0), int8(-1), int8(127), int8(-128), int8(5)}},
		{"int32", schema.Type{Kind: schema.Int32}, arrow.PrimitiveTypes.Int32, types.Int32,
			[]any{nil, int32(0), int32(-7), int32(math.MaxInt32), int32(math.MinInt32), int32(7)}},
		{"int64", schema.Type{Kind: schema.Int64}, arrow.PrimitiveTypes.Int64, types.Int64,
			[]any{nil, int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64), int64(1 << 40)}},
		{"uint32", schema.Type{Kind: schema.Uint32}, arrow.PrimitiveTypes.Uint32, types.Uint32,
			[]any{nil, uint32(0), uint32(math.MaxUint32), uint32(1)}},
		{"uint64", schema.Type{Kind: schema.Uint64}, arrow.PrimitiveTypes.Uint64, types.Uint64,
			[]any{nil, uint64(0), uint64(1), uint64(math.MaxInt64), uint64(math.MaxInt64) + 1, uint64(math.MaxUint64)}},
		{"float32", schema.Type{Kind: schema.Float32}, arrow.PrimitiveTypes.Float32, types.Float32,
			[]any{nil, float32(0), float32(math.Copysign(0, -1)), float32(math.NaN()), float32(0.1), float32(-2.5), float32(math.Inf(1))}},
		{"float64", schema.Type{Kind: schema.Float64}, arrow.PrimitiveTypes.Float64, types.Float64,
			[]any{nil, 0.0, math.Copysign(0, -1), math.NaN(), -math.NaN(), 0.1, 0.1 + 1e-17, 1e300, math.Inf(-1), float64(float32(0.1))}},
		{"decimal", schema.Type{Kind: schema.Decimal, Precision: 12, Scale: 3}, &arrow.Decimal128Type{Precision: 12, Scale: 3}, types.MustCreateDecimalType(12, 3),
			[]any{nil, decimal128.FromI64(0), decimal128.FromI64(-1), decimal128.FromI64(1500), decimal128.FromI64(15), decimal128.FromI64(-999999999999)}},
		{"date", schema.Type{Kind: schema.Date}, arrow.FixedWidthTypes.Date32, types.Date,
			[]any{nil, arrow.Date32(0), arrow.Date32(-1), arrow.Date32(-25000), arrow.Date32(18000)}},
		{"timestamp_us", schema.Type{Kind: schema.Timestamp}, ts(arrow.Microsecond), types.DatetimeMaxPrecision,
			[]any{nil, arrow.Timestamp(0), arrow.Timestamp(-1), arrow.Timestamp(1), arrow.Timestamp(-86400000000), arrow.Timestamp(1e15)}},
		{"timestamp_ns", schema.Type{Kind: schema.Timestamp}, ts(arrow.Nanosecond), types.DatetimeMaxPrecision,
			[]any{nil, arrow.Timestamp(0), arrow.Timestamp(999), arrow.Timestamp(1000), arrow.Timestamp(-1), arrow.Timestamp(-1000), arrow.Timestamp(-1001)}},
		{"string", schema.Type{Kind: schema.String}, arrow.BinaryTypes.String, types.LongText,
			[]any{nil, "", "a", "A", "a ", "seven b", "eight by", "a long string value", "a long string valuE"}},
	}
}

// buildArray makes an array of dt from vals (nil: NULL).
func buildArray(t *testing.T, dt arrow.DataType, vals []any) arrow.Array {
	t.Helper()
	b := array.NewBuilder(memory.DefaultAllocator, dt)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
			continue
		}
		switch b := b.(type) {
		case *array.Int8Builder:
			b.Append(v.(int8))
		case *array.Int32Builder:
			b.Append(v.(int32))
		case *array.Int64Builder:
			b.Append(v.(int64))
		case *array.Uint32Builder:
			b.Append(v.(uint32))
		case *array.Uint64Builder:
			b.Append(v.(uint64))
		case *array.Float32Builder:
			b.Append(v.(float32))
		case *array.Float64Builder:
			b.Append(v.(float64))
		case *array.Decimal128Builder:
			b.Append(v.(decimal128.Num))
		case *array.Date32Builder:
			b.Append(v.(arrow.Date32))
		case *array.TimestampBuilder:
			b.Append(v.(arrow.Timestamp))
		case *array.StringBuilder:
			b.Append(v.(string))
		default:
			t.Fatalf("no builder for %s", dt)
		}
	}
	return b.NewArray()
}

// gmsCountDistinct is GMS's own COUNT(DISTINCT x) buffer.
func gmsCountDistinct(t *testing.T, typ sql.Type) sql.AggregationBuffer {
	t.Helper()
	buf, err := aggregation.NewCountDistinct(expression.NewGetField(0, typ, "x", true)).NewBuffer()
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// TestCountDistinct_MatchesGMS: COUNT(DISTINCT) of every supported type,
// over random selections of batches whose groups are numbered locally
// (each partial's own order), merged through remaps into the result's
// groups, equals GMS's countDistinctBuffer fed the same rows as the row
// path produces them (fillColumn), value and Go type: so NULLs are
// skipped, -0 counts as 0, NaNs as one value, sub-microsecond times as
// their microsecond.
func TestCountDistinct_MatchesGMS(t *testing.T) {
	ctx := sql.NewEmptyContext()
	for _, c := range distinctCases() {
		for seed := int64(0); seed < 12; seed++ {
			rng := rand.New(rand.NewSource(seed))
			groups := []int{1, 3, 50, 2000}[seed%4] // 2000: many groups of few rows
			ref := make([]sql.AggregationBuffer, groups)
			for g := range ref {
				ref[g] = gmsCountDistinct(t, c.sqlT)
			}
			total := newAccum(AggCountDistinct, c.typ, 0)
			total.grow(groups)
			for part := 0; part < 1+rng.Intn(4); part++ {
				// A partial meets a random subset of the groups, numbered in
				// the order it meets them; remap maps them back.
				var remap []int32
				local := map[int32]int32{}
				acc := total.fresh()
				for batch := 0; batch < 1+rng.Intn(3); batch++ {
					n := rng.Intn(3 * groups)
					vals := make([]any, n)
					for i := range vals {
						vals[i] = c.pool[rng.Intn(len(c.pool))]
					}
					if rng.Intn(5) == 0 { // an all-NULL batch
						clear(vals)
					}
					arr := buildArray(t, c.dt, vals)
					rows := make([]sql.Row, n)
					for i := range rows {
						rows[i] = make(sql.Row, 1)
					}
					if err := fillColumn(rows, 0, arr, c.typ); err != nil {
						t.Fatal(err)
					}
					var sel, gid []int32
					for i := range n {
						if rng.Intn(4) == 0 {
							continue // not selected
						}
						g := int32(rng.Intn(groups))
						l, ok := local[g]
						if !ok {
							l = int32(len(remap))
							local[g] = l
							remap = append(remap, g)
							acc.grow(len(remap))
						}
						sel, gid = append(sel, int32(i)), append(gid, l)
						if err := ref[g].Update(ctx, rows[i]); err != nil {
							t.Fatal(err)
						}
					}
					acc.update(arr, sel, gid)
					arr.Release()
				}
				acc.grow(len(remap))
				total.merge(acc, remap)
			}
			for g := range groups {
				want, err := ref[g].Eval(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if got := total.result(g); got != want {
					t.Fatalf("%s seed %d group %d: got %T %v, GMS %T %v", c.name, seed, g, got, got, want, want)
				}
			}
		}
	}
}

// TestCountDistinct_MergeUnions: merging partials unions their sets per
// target group, whether a partial's groups map to the result's in order
// (its set is taken over) or permuted and folded together.
func TestCountDistinct_MergeUnions(t *testing.T) {
	i64 := schema.Type{Kind: schema.Int64}
	part := func(vals []any, gid []int32, groups int) accum {
		arr := buildArray(t, arrow.PrimitiveTypes.Int64, vals)
		defer arr.Release()
		a := newAccum(AggCountDistinct, i64, 0)
		a.grow(groups)
		a.update(arr, rowsUpTo(len(vals)), gid)
		return a
	}
	total := newAccum(AggCountDistinct, i64, 0)
	total.grow(3)
	first := part([]any{int64(1), int64(2), int64(2), nil, int64(1)}, []int32{0, 0, 0, 1, 1}, 3)
	total.merge(first, []int32{0, 1, 2}) // taken over: first is left empty
	if got := first.result(0); got != int64(0) {
		t.Errorf("merged-from partial keeps %v", got)
	}
	// Its groups 0 and 1 both fold into group 2, group 2 into group 0.
	total.merge(part([]any{int64(2), int64(3), int64(1), int64(9)}, []int32{0, 1, 1, 2}, 3), []int32{2, 2, 0})
	for g, want := range []int64{3, 1, 3} { // {1,2,9}, {1}, {2,3,1}
		if got := total.result(g); got != want {
			t.Errorf("group %d: got %v, want %d", g, got, want)
		}
	}
}

// TestCountDistinct_RejectsLongStrings: a selected string longer than
// TEXT's 65535 bytes, which GMS fails to convert, marks the accumulator
// (and a partial it merges into); an unselected or NULL one does not.
func TestCountDistinct_RejectsLongStrings(t *testing.T) {
	str := schema.Type{Kind: schema.String}
	long := strings.Repeat("x", maxTextBytes+1)
	arr := buildArray(t, arrow.BinaryTypes.String, []any{"a", long, nil, strings.Repeat("y", maxTextBytes)})
	defer arr.Release()
	for _, c := range []struct {
		sel    []int32
		reject bool
	}{{[]int32{0, 2, 3}, false}, {[]int32{0, 1}, true}, {[]int32{1}, true}} {
		a := newAccum(AggCountDistinct, str, 0)
		a.grow(1)
		a.update(arr, c.sel, make([]int32, len(c.sel)))
		total := a.fresh()
		total.grow(1)
		total.merge(a, []int32{0})
		for _, acc := range []accum{a, total} {
			if got := acc.(rejecter).reject(); got != c.reject {
				t.Errorf("sel %v: reject %v, want %v", c.sel, got, c.reject)
			}
		}
	}
}

// TestCountDistinct_CopiesStrings: kept strings do not point into a
// released batch's buffers.
func TestCountDistinct_CopiesStrings(t *testing.T) {
	str := schema.Type{Kind: schema.String}
	a := newAccum(AggCountDistinct, str, 0)
	a.grow(1)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.AppendValues([]string{"abc", "abd"}, nil)
	arr := b.NewStringArray()
	a.update(arr, []int32{0, 1}, []int32{0, 0})
	clear(arr.ValueBytes()) // as a reused buffer would be overwritten
	arr.Release()
	b.Release()
	arr2 := buildArray(t, arrow.BinaryTypes.String, []any{"abc", "abd", "\x00\x00\x00"})
	defer arr2.Release()
	a.update(arr2, []int32{0, 1, 2}, []int32{0, 0, 0})
	if got := a.result(0); got != int64(3) {
		t.Errorf("got %v distinct, want 3", got)
	}
}
