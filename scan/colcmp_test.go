package scan

import (
	"cmp"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestSelectColumns_MatchesScalar: comparisons of two columns of every
// supported storage select exactly the rows a per-row comparison of the
// Go values selects, NULL on either side never matching.
func TestSelectColumns_MatchesScalar(t *testing.T) {
	mem := memory.DefaultAllocator
	type pair struct{ a, b any } // nil: NULL
	cases := []struct {
		name string
		typ  arrow.DataType
		rows []pair
		less func(a, b any) int
	}{
		{"int32", arrow.PrimitiveTypes.Int32, []pair{{int32(1), int32(2)}, {int32(2), int32(2)}, {nil, int32(1)}, {int32(-5), nil}, {int32(7), int32(-7)}, {nil, nil}},
			func(a, b any) int { return cmp.Compare(a.(int32), b.(int32)) }},
		{"date", arrow.FixedWidthTypes.Date32, []pair{{arrow.Date32(10), arrow.Date32(11)}, {arrow.Date32(11), arrow.Date32(11)}, {arrow.Date32(-3), nil}, {arrow.Date32(12), arrow.Date32(1)}},
			func(a, b any) int { return cmp.Compare(a.(arrow.Date32), b.(arrow.Date32)) }},
		{"timestamp", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, []pair{{arrow.Timestamp(5), arrow.Timestamp(6)}, {arrow.Timestamp(6), arrow.Timestamp(6)}, {nil, arrow.Timestamp(1)}, {arrow.Timestamp(9), arrow.Timestamp(-9)}},
			func(a, b any) int { return cmp.Compare(a.(arrow.Timestamp), b.(arrow.Timestamp)) }},
		{"decimal", &arrow.Decimal128Type{Precision: 12, Scale: 2}, []pair{{decimal128.FromI64(150), decimal128.FromI64(-150)}, {decimal128.FromI64(3), decimal128.FromI64(3)}, {nil, decimal128.FromI64(1)}, {decimal128.FromI64(-1), decimal128.FromI64(0)}},
			func(a, b any) int { return a.(decimal128.Num).Cmp(b.(decimal128.Num)) }},
		{"string", arrow.BinaryTypes.String, []pair{{"a", "b"}, {"b", "b"}, {"", "a"}, {"é", "z"}, {nil, "x"}, {"ab", "a"}},
			func(a, b any) int { return cmp.Compare(a.(string), b.(string)) }},
	}
	for _, c := range cases {
		for _, op := range []Op{OpEq, OpLt, OpLe, OpGt, OpGe} {
			t.Run(fmt.Sprintf("%s/%d", c.name, op), func(t *testing.T) {
				rb := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{{Name: "a", Type: c.typ, Nullable: true}, {Name: "b", Type: c.typ, Nullable: true}}, nil))
				defer rb.Release()
				var want []int32
				for i, r := range c.rows {
					for k, v := range []any{r.a, r.b} {
						appendAny(rb.Field(k), v)
					}
					if r.a != nil && r.b != nil && match(op, c.less(r.a, r.b)) {
						want = append(want, int32(i))
					}
				}
				rec := rb.NewRecord()
				defer rec.Release()
				got := selectColumns(rec, []colPred{{l: 0, r: 1, op: op}}, rowsUpTo(len(c.rows)))
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("got %v, want %v", got, want)
				}
			})
		}
	}
}

func appendAny(b array.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.AppendNull()
	case int32:
		b.(*array.Int32Builder).Append(x)
	case arrow.Date32:
		b.(*array.Date32Builder).Append(x)
	case arrow.Timestamp:
		b.(*array.TimestampBuilder).Append(x)
	case decimal128.Num:
		b.(*array.Decimal128Builder).Append(x)
	case string:
		b.(*array.StringBuilder).Append(x)
	}
}
