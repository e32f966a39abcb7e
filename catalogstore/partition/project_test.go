package partition

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

func TestProject(t *testing.T) {
	tDec := schema.Type{Kind: schema.Decimal, Precision: 10, Scale: 2}
	ts := int64(1510871468000000) // 2017-11-16T22:31:08Z, day 17486
	dayStart := int64(17486) * microsPerDay
	for _, c := range []struct {
		name string
		t    Transform
		src  schema.Type
		op   string
		v    any
		ok   bool
		op2  string
		v2   any
	}{
		{"identity/<", Identity, tInt64, "<", int64(5), true, "<", int64(5)},
		{"identity/=string", Identity, tString, "=", "x", true, "=", "x"},
		{"void/=", Void, tInt64, "=", int64(5), false, "", nil},
		{"bucket/=/vectors/bucket[16](34)=3", Bucket(16), tInt64, "=", int64(34), true, "=", int64(3)},
		{"bucket/<", Bucket(16), tInt64, "<", int64(34), false, "", nil},
		{"bucket/>=", Bucket(16), tInt64, ">=", int64(34), false, "", nil},
		{"day/=", Day, tTimestamp, "=", ts, true, "=", int64(17486)},
		{"day/>=", Day, tTimestamp, ">=", ts, true, ">=", int64(17486)},
		{"day/>", Day, tTimestamp, ">", ts, true, ">=", int64(17486)},
		{"day/>/last-µs-of-day", Day, tTimestamp, ">", dayStart - 1, true, ">=", int64(17486)},
		{"day/</first-µs-of-day", Day, tTimestamp, "<", dayStart, true, "<=", int64(17485)},
		{"day/<=/first-µs-of-day", Day, tTimestamp, "<=", dayStart, true, "<=", int64(17486)},
		{"day/</pre1970/epoch", Day, tTimestamp, "<", int64(0), true, "<=", int64(-1)},
		{"day/>=/pre1970/-1µs", Day, tTimestamp, ">=", int64(-1), true, ">=", int64(-1)},
		{"month/</date/1970-01-01", Month, tDate, "<", int32(0), true, "<=", int64(-1)},
		{"month/>/date/1969-12-31", Month, tDate, ">", int32(-1), true, ">=", int64(0)},
		{"year/<=/date", Year, tDate, "<=", int32(-1), true, "<=", int64(-1)},
		{"hour/>/timestamp", Hour, tTimestamp, ">", int64(-1), true, ">=", int64(0)},
		{"hour/</MinInt64", Hour, tTimestamp, "<", int64(math.MinInt64), false, "", nil},
		{"day/>/MaxInt64", Day, tTimestamp, ">", int64(math.MaxInt64), false, "", nil},
		{"date/</MinInt32", Day, tDate, "<", int32(math.MinInt32), false, "", nil},
		{"truncate/int/=", Truncate(10), tInt64, "=", int64(-1), true, "=", int64(-10)},
		{"truncate/int/<10", Truncate(10), tInt64, "<", int64(10), true, "<=", int64(0)},
		{"truncate/int/<=10", Truncate(10), tInt64, "<=", int64(10), true, "<=", int64(10)},
		{"truncate/int/>9", Truncate(10), tInt64, ">", int64(9), true, ">=", int64(10)},
		{"truncate/int/>=9", Truncate(10), tInt64, ">=", int64(9), true, ">=", int64(0)},
		{"truncate/int/<MinInt64", Truncate(10), tInt64, "<", int64(math.MinInt64), false, "", nil},
		{"truncate/int/=MinInt64-overflow", Truncate(10), tInt64, "=", int64(math.MinInt64), false, "", nil},
		{"truncate/int8/<-128/none-below-min", Truncate(10), schema.Type{Kind: schema.Int8}, "<", int64(-128), false, "", nil},
		{"truncate/int8/<=-128", Truncate(10), schema.Type{Kind: schema.Int8}, "<=", int64(-128), true, "<=", int64(-130)},
		{"truncate/decimal/<10.50", Truncate(50), tDec, "<", dec("10.50", 2), true, "<=", dec("10.00", 2)},
		{"truncate/decimal/>10.49", Truncate(50), tDec, ">", dec("10.49", 2), true, ">=", dec("10.50", 2)},
		{"truncate/decimal/>max-precision", Truncate(50), tDec, ">", dec("99999999.99", 2), false, "", nil},
		{"truncate/string/=", Truncate(3), tString, "=", "iceberg", true, "=", "ice"},
		{"truncate/string/<", Truncate(3), tString, "<", "iceberg", true, "<=", "ice"},
		{"truncate/string/>", Truncate(3), tString, ">", "iceberg", true, ">=", "ice"},
		{"truncate/string/non-BMP/>=", Truncate(2), tString, ">=", "😀😁😂", true, ">=", "😀😁"},
		{"truncate/binary/<=", Truncate(2), tBinary, "<=", []byte{1, 2, 3}, true, "<=", []byte{1, 2}},
		{"unknown-op", Day, tTimestamp, "!=", ts, false, "", nil},
		{"null-value", Day, tTimestamp, "=", nil, false, "", nil},
		{"bad-go-type", Day, tTimestamp, "=", 5, false, "", nil},
		{"transform-refuses-type", Day, tString, "=", "x", false, "", nil},
		{"out-of-range-for-type", Truncate(10), schema.Type{Kind: schema.Int8}, "<", int64(1000), false, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := Field{SourceID: 1, FieldID: 1000, Name: "p", Transform: c.t}
			ok, op2, v2 := f.Project(c.src, c.op, c.v)
			if ok != c.ok || op2 != c.op2 || !reflect.DeepEqual(v2, c.v2) {
				t.Fatalf("Project(%s %s %v) = %v, %q, %#v; want %v, %q, %#v", c.src, c.op, c.v, ok, op2, v2, c.ok, c.op2, c.v2)
			}
		})
	}
}

// compare orders two values of one Go representation as the values they
// stand for.
func compare(a, b any) int {
	switch x := a.(type) {
	case int64:
		return cmpOrdered(x, b.(int64))
	case int32:
		return cmpOrdered(x, b.(int32))
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case Decimal:
		return x.Unscaled.Cmp(b.(Decimal).Unscaled)
	}
	panic(fmt.Sprintf("compare %T", a))
}

func cmpOrdered[T int32 | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func holds(a any, op string, b any) bool {
	c := compare(a, b)
	switch op {
	case "=":
		return c == 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	panic(op)
}

// TestProject_Superset checks the one property pruning needs: whenever
// `x op v` holds, `f(x) op2 v2` holds too, over random values near
// boundaries (pre-1970, day and month edges, multi-byte strings).
func TestProject_Superset(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tDec := schema.Type{Kind: schema.Decimal, Precision: 10, Scale: 2}
	runes := []rune{'a', 'b', 'z', 'é', 'ñ', '€', '😀', '😁', 0x10FFFF, 0}
	gen := map[schema.Kind]func() any{
		schema.Int64: func() any { return rng.Int64N(200) - 100 },
		schema.Timestamp: func() any {
			return (rng.Int64N(800) - 400) * microsPerDay / 7 * int64(1+rng.IntN(3)) // spans 1969/1970
		},
		schema.Date: func() any { return int32(rng.Int64N(1500) - 750) },
		schema.Decimal: func() any {
			return Decimal{Unscaled: big64(rng.Int64N(20000) - 10000), Scale: 2}
		},
		schema.String: func() any {
			var b strings.Builder
			for range rng.IntN(5) {
				b.WriteRune(runes[rng.IntN(len(runes))])
			}
			return b.String()
		},
		schema.Binary: func() any {
			b := make([]byte, rng.IntN(4))
			for i := range b {
				b[i] = byte(rng.IntN(4)) * 85
			}
			return b
		},
	}
	types := []schema.Type{tInt64, tTimestamp, tDate, tDec, tString, tBinary}
	ops := []string{"=", "<", "<=", ">", ">="}
	for _, tr := range []Transform{Identity, Bucket(5), Truncate(1), Truncate(3), Truncate(7), Year, Month, Day, Hour} {
		for _, typ := range types {
			if !tr.Accepts(typ) {
				continue
			}
			f := Field{SourceID: 1, FieldID: 1000, Name: "p", Transform: tr}
			checked := 0
			for range 3000 {
				x, v, op := gen[typ.Kind](), gen[typ.Kind](), ops[rng.IntN(len(ops))]
				if rng.IntN(4) == 0 {
					x = v
				}
				ok, op2, v2 := f.Project(typ, op, v)
				if !ok || !holds(x, op, v) {
					continue
				}
				fx, err := tr.Apply(typ, x)
				if err != nil {
					t.Fatal(err)
				}
				if !holds(fx, op2, v2) {
					t.Fatalf("%s over %s: %#v %s %#v holds, but projected %#v %s %#v does not", tr, typ, x, op, v, fx, op2, v2)
				}
				checked++
			}
			if checked < 100 {
				t.Fatalf("%s over %s: only %d matching cases checked", tr, typ, checked)
			}
		}
	}
}

func big64(n int64) *big.Int { return big.NewInt(n) }
