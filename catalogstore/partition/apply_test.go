package partition

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

type applyCase struct {
	name string
	t    Transform
	typ  schema.Type
	v    any
	want any
}

func runApply(t *testing.T, cases []applyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.t.Apply(c.typ, c.v)
			if err != nil {
				t.Fatalf("%s.Apply(%s, %v): %v", c.t, c.typ, c.v, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("%s.Apply(%s, %#v) = %#v, want %#v", c.t, c.typ, c.v, got, c.want)
			}
		})
	}
}

func TestApply_Bucket(t *testing.T) {
	dec92 := schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 2}
	b := func(h int32, n int64) int64 { return int64(h&math.MaxInt32) % n }
	runApply(t, []applyCase{
		{"vectors/bucket[16](34)=3", Bucket(16), tInt32, int64(34), int64(3)},
		{"vectors/bucket[16](34L)=3", Bucket(16), tInt64, int64(34), int64(3)},
		{"appendixB/int/34/bucket[100]", Bucket(100), tInt32, int64(34), b(2017239379, 100)},
		{"appendixB/decimal/14.20/bucket[16]", Bucket(16), dec92, dec("14.20", 2), b(-500754589, 16)},
		{"appendixB/date/2017-11-16/bucket[16]", Bucket(16), tDate, int32(17486), b(-653330422, 16)},
		{"appendixB/time/22:31:08/bucket[16]", Bucket(16), tTime, int64(81068000000), b(-662762989, 16)},
		{"appendixB/timestamp/2017-11-16T22:31:08/bucket[16]", Bucket(16), tTimestamp, int64(1510871468000000), b(-2047944441, 16)},
		{"appendixB/string/iceberg/bucket[16]", Bucket(16), tString, "iceberg", b(1210000089, 16)},
		{"appendixB/binary/00010203/bucket[16]", Bucket(16), tBinary, []byte{0, 1, 2, 3}, b(-188683207, 16)},
		{"bucket[1]/always-0", Bucket(1), tString, "anything", int64(0)},
		{"bucket[MaxInt32]", Bucket(math.MaxInt32), tInt64, int64(34), int64(2017239379)},
	})
}

func TestApply_Truncate(t *testing.T) {
	dec92 := schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 2}
	runApply(t, []applyCase{
		{"vectors/truncate/int/W=10/1->0", Truncate(10), tInt32, int64(1), int64(0)},
		{"vectors/truncate/int/W=10/-1->-10", Truncate(10), tInt32, int64(-1), int64(-10)},
		{"vectors/truncate/int/W=10/0->0", Truncate(10), tInt32, int64(0), int64(0)},
		{"vectors/truncate/int/W=10/10->10", Truncate(10), tInt32, int64(10), int64(10)},
		{"vectors/truncate/int/W=10/-10->-10", Truncate(10), tInt32, int64(-10), int64(-10)},
		{"vectors/truncate/int/W=10/-11->-20", Truncate(10), tInt32, int64(-11), int64(-20)},
		{"vectors/truncate/long/W=10/-1->-10", Truncate(10), tInt64, int64(-1), int64(-10)},
		{"truncate/long/MaxInt64", Truncate(10), tInt64, int64(math.MaxInt64), int64(math.MaxInt64 - 7)},
		{"truncate/int8/-128-below-min", Truncate(10), schema.Type{Kind: schema.Int8}, int64(-128), int64(-130)},
		{"truncate/uint32/max", Truncate(1000), schema.Type{Kind: schema.Uint32}, int64(math.MaxUint32), int64(4294967000)},
		{"vectors/truncate/decimal/W=50,s=2/10.65->10.50", Truncate(50), dec92, dec("10.65", 2), dec("10.50", 2)},
		{"truncate/decimal/W=50,s=2/-10.65->-11.00", Truncate(50), dec92, dec("-10.65", 2), dec("-11.00", 2)},
		{"truncate/decimal/W=10,s=2/-0.05->-0.10", Truncate(10), dec92, dec("-0.05", 2), dec("-0.10", 2)},
		{"truncate/decimal/W=1/identity", Truncate(1), dec92, dec("12.34", 2), dec("12.34", 2)},
		{"vectors/truncate/string/W=3/iceberg->ice", Truncate(3), tString, "iceberg", "ice"},
		{"vectors/truncate/string/W=2/non-BMP", Truncate(2), tString, "😀😁😂", "😀😁"},
		{"truncate/string/W=3/multibyte-counts-code-points", Truncate(3), tString, "añoño", "año"},
		{"truncate/string/W=10/shorter", Truncate(10), tString, "abc", "abc"},
		{"truncate/string/empty", Truncate(1), tString, "", ""},
		{"vectors/truncate/binary/W=3", Truncate(3), tBinary, []byte{0, 1, 2, 3}, []byte{0, 1, 2}},
		{"truncate/binary/W=10/shorter", Truncate(10), tBinary, []byte{0, 1}, []byte{0, 1}},
		{"truncate/binary/empty", Truncate(2), tBinary, []byte{}, []byte{}},
	})
}

func TestApply_TruncateBinaryDoesNotAlias(t *testing.T) {
	in := []byte{1, 2, 3, 4}
	out, _ := Truncate(2).Apply(tBinary, in)
	out.([]byte)[0] = 9
	if in[0] != 1 {
		t.Fatal("truncate returned a slice of its input")
	}
}

func TestApply_Time(t *testing.T) {
	ts := func(s string) int64 { return mustTS(t, time.RFC3339Nano, s) }
	date := func(s string) int32 { return int32(mustTS(t, time.DateOnly, s) / microsPerDay) }
	var cases []applyCase
	add := func(name string, typ schema.Type, v any, year, month, day, hour int64) {
		cases = append(cases,
			applyCase{name + "/year", Year, typ, v, year},
			applyCase{name + "/month", Month, typ, v, month},
			applyCase{name + "/day", Day, typ, v, day})
		if typ.Kind == schema.Timestamp {
			cases = append(cases, applyCase{name + "/hour", Hour, typ, v, hour})
		}
	}
	add("appendixB/timestamp/2017-11-16T22:31:08", tTimestamp, ts("2017-11-16T22:31:08Z"), 47, 574, 17486, 17486*24+22)
	add("appendixB/date/2017-11-16", tDate, date("2017-11-16"), 47, 574, 17486, 0)
	add("hoglake/month/2026-01=672", tTimestamp, ts("2026-01-15T00:00:00Z"), 56, 672, 20468, 20468*24)
	add("epoch/timestamp", tTimestamp, int64(0), 0, 0, 0, 0)
	add("epoch/date", tDate, int32(0), 0, 0, 0, 0)
	add("pre1970/timestamp/1969-12-31T23:59:59.999999", tTimestamp, int64(-1), -1, -1, -1, -1)
	add("pre1970/timestamp/1969-12-31T23:00:00", tTimestamp, ts("1969-12-31T23:00:00Z"), -1, -1, -1, -1)
	add("pre1970/timestamp/1969-12-31T22:59:59.999999", tTimestamp, ts("1969-12-31T22:59:59.999999Z"), -1, -1, -1, -2)
	add("pre1970/timestamp/1969-12-01T00:00:00", tTimestamp, ts("1969-12-01T00:00:00Z"), -1, -1, -31, -31*24)
	add("pre1970/timestamp/1969-11-30T23:59:59.999999", tTimestamp, ts("1969-11-30T23:59:59.999999Z"), -1, -2, -32, -31*24-1)
	add("pre1970/timestamp/1969-01-01T00:00:00", tTimestamp, ts("1969-01-01T00:00:00Z"), -1, -12, -365, -365*24)
	add("pre1970/timestamp/1968-12-31T23:59:59.999999", tTimestamp, ts("1968-12-31T23:59:59.999999Z"), -2, -13, -366, -365*24-1)
	add("pre1970/date/1969-12-31", tDate, int32(-1), -1, -1, -1, 0)
	add("pre1970/date/1969-01-01", tDate, int32(-365), -1, -12, -365, 0)
	add("pre1970/date/1968-12-31", tDate, int32(-366), -2, -13, -366, 0)
	add("pre1970/date/1900-03-01", tDate, date("1900-03-01"), -70, -70*12+2, int64(date("1900-03-01")), 0)
	add("pre1970/date/0001-01-01", tDate, int32(-719162), -1969, -1969*12, -719162, 0)
	add("leap/date/2000-02-29", tDate, date("2000-02-29"), 30, 361, int64(date("2000-02-29")), 0)
	runApply(t, cases)
}

// The civil-date arithmetic behind year and month agrees with the time
// package day by day across 1600..2400, and at far dates.
func TestCivilFromDays(t *testing.T) {
	check := func(days int64) {
		tm := time.Unix(days*86400, 0).UTC()
		y, m, d := civilFromDays(days)
		if y != int64(tm.Year()) || m != int(tm.Month()) || d != tm.Day() {
			t.Fatalf("civilFromDays(%d) = %d-%d-%d, want %s", days, y, m, d, tm.Format(time.DateOnly))
		}
		if back := daysFromCivil(y, m, d); back != days {
			t.Fatalf("daysFromCivil(%d-%d-%d) = %d, want %d", y, m, d, back, days)
		}
	}
	for days := int64(-135140); days <= 157000; days++ {
		check(days)
	}
	for _, days := range []int64{math.MinInt32, math.MaxInt32, -1 << 40, 1 << 40} {
		check(days)
	}
}

func TestApply_NullInNullOut(t *testing.T) {
	tDec := schema.Type{Kind: schema.Decimal, Precision: 10, Scale: 2}
	for _, tr := range []Transform{Identity, Bucket(16), Truncate(10), Year, Month, Day, Hour, Void} {
		for _, typ := range []schema.Type{tInt64, tString, tBinary, tDec, tDate, tTimestamp} {
			if !tr.Accepts(typ) {
				continue
			}
			got, err := tr.Apply(typ, nil)
			if err != nil || got != nil {
				t.Errorf("%s.Apply(%s, nil) = %v, %v; want nil, nil", tr, typ, got, err)
			}
		}
	}
}

func TestApply_Void(t *testing.T) {
	for _, c := range []struct {
		typ schema.Type
		v   any
	}{{tInt64, int64(1)}, {tString, "x"}, {schema.Type{Kind: schema.JSON}, `{"a":1}`}, {tFloat64, 1.5}} {
		if got, err := Void.Apply(c.typ, c.v); got != nil || err != nil {
			t.Errorf("void.Apply(%s, %v) = %v, %v", c.typ, c.v, got, err)
		}
	}
}

func TestApply_Identity(t *testing.T) {
	runApply(t, []applyCase{
		{"identity/int64", Identity, tInt64, int64(-7), int64(-7)},
		{"identity/uint64", Identity, schema.Type{Kind: schema.Uint64}, uint64(math.MaxUint64), uint64(math.MaxUint64)},
		{"identity/float64", Identity, tFloat64, 1.5, 1.5},
		{"identity/bool", Identity, tBool, true, true},
		{"identity/string", Identity, tString, "x", "x"},
		{"identity/date", Identity, tDate, int32(-1), int32(-1)},
	})
}

func TestApply_RefusesValue(t *testing.T) {
	for _, c := range []struct {
		name string
		t    Transform
		typ  schema.Type
		v    any
		want error
	}{
		{"int-not-int64", Identity, tInt64, 5, ErrBadValue},
		{"int8-out-of-range", Identity, schema.Type{Kind: schema.Int8}, int64(200), ErrBadValue},
		{"uint16-negative", Bucket(4), schema.Type{Kind: schema.Uint16}, int64(-1), ErrBadValue},
		{"date-not-int32", Day, tDate, int64(1), ErrBadValue},
		{"time-beyond-a-day", Identity, tTime, int64(microsPerDay), ErrBadValue},
		{"decimal-scale-mismatch", Truncate(5), schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 2}, dec("1.5", 1), ErrBadValue},
		{"decimal-too-many-digits", Identity, schema.Type{Kind: schema.Decimal, Precision: 3, Scale: 2}, dec("10.00", 2), ErrBadValue},
		{"decimal-nil-unscaled", Identity, schema.Type{Kind: schema.Decimal, Precision: 3, Scale: 2}, Decimal{Scale: 2}, ErrBadValue},
		{"truncate-invalid-utf8", Truncate(2), tString, "a\xffb", ErrBadValue},
		{"truncate-long-overflow", Truncate(10), tInt64, int64(math.MinInt64), ErrOverflow},
		{"hour-overflow", Hour, tTimestamp, int64(math.MaxInt64), ErrOverflow},
		{"zero-transform", Transform{}, tInt64, int64(1), ErrBadTransform},
		{"transform-refuses-type", Day, tString, "2017-11-16", ErrTransformType},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.t.Apply(c.typ, c.v)
			if !errors.Is(err, c.want) {
				t.Fatalf("%s.Apply(%s, %#v) = %v, %v; want %v", c.t, c.typ, c.v, got, err, c.want)
			}
		})
	}
}
