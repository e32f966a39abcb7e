package partition

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

func TestToString_FromString(t *testing.T) {
	tDec := schema.Type{Kind: schema.Decimal, Precision: 10, Scale: 2}
	dec0 := schema.Type{Kind: schema.Decimal, Precision: 10, Scale: 0}
	for _, c := range []struct {
		name string
		t    Transform
		src  schema.Type
		v    any // partition value
		want string
	}{
		{"hoglake/identity/int64/101", Identity, tInt64, int64(101), "101"},
		{"hoglake/month/672", Month, tTimestamp, int64(672), "672"},
		{"month/pre1970/-1", Month, tDate, int64(-1), "-1"},
		{"bucket/3", Bucket(16), tInt64, int64(3), "3"},
		{"truncate/int8/-130", Truncate(10), schema.Type{Kind: schema.Int8}, int64(-130), "-130"},
		{"identity/uint64/max", Identity, schema.Type{Kind: schema.Uint64}, uint64(math.MaxUint64), "18446744073709551615"},
		{"identity/bool", Identity, tBool, true, "true"},
		{"identity/float64", Identity, tFloat64, 0.1, "0.1"},
		{"identity/float64/-0", Identity, tFloat64, math.Copysign(0, -1), "-0"},
		{"identity/float64/+Inf", Identity, tFloat64, math.Inf(1), "+Inf"},
		{"identity/float32/0.1", Identity, tFloat32, float64(float32(0.1)), "0.1"},
		{"truncate/decimal/10.50", Truncate(50), tDec, dec("10.50", 2), "10.50"},
		{"truncate/decimal/-0.05", Truncate(1), tDec, dec("-0.05", 2), "-0.05"},
		{"identity/decimal/scale0", Identity, dec0, dec("-1420", 0), "-1420"},
		{"truncate/string/non-BMP", Truncate(2), tString, "😀😁", "😀😁"},
		{"identity/string/empty", Identity, tString, "", ""},
		{"truncate/binary/hex", Truncate(4), tBinary, []byte{0, 1, 2, 0xff}, "000102ff"},
		{"identity/date/2017-11-16", Identity, tDate, int32(17486), "2017-11-16"},
		{"identity/date/1969-12-31", Identity, tDate, int32(-1), "1969-12-31"},
		{"identity/date/0001-01-01", Identity, tDate, int32(-719162), "0001-01-01"},
		{"identity/date/-0001-12-31", Identity, tDate, int32(daysFromCivil(-1, 12, 31)), "-0001-12-31"},
		{"identity/date/min", Identity, tDate, int32(math.MinInt32), "-5877641-06-23"},
		{"identity/date/max", Identity, tDate, int32(math.MaxInt32), "5881580-07-11"},
		{"identity/time/22:31:08", Identity, tTime, int64(81068000000), "22:31:08"},
		{"identity/time/fraction", Identity, tTime, int64(81068000001), "22:31:08.000001"},
		{"identity/timestamp/2017-11-16T22:31:08", Identity, tTimestamp, int64(1510871468000000), "2017-11-16T22:31:08Z"},
		{"identity/timestamp/.000001", Identity, tTimestamp, int64(1510871468000001), "2017-11-16T22:31:08.000001Z"},
		{"identity/timestamp/pre1970", Identity, tTimestamp, int64(-1), "1969-12-31T23:59:59.999999Z"},
		{"identity/timestamp/min", Identity, tTimestamp, int64(math.MinInt64), "-290308-12-21T19:59:05.224192Z"},
		{"identity/timestamp/max", Identity, tTimestamp, int64(math.MaxInt64), "294247-01-10T04:00:54.775807Z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := c.t.ToString(c.src, c.v)
			if err != nil {
				t.Fatal(err)
			}
			if s == nil || *s != c.want {
				t.Fatalf("ToString(%s, %#v) = %v, want %q", c.src, c.v, s, c.want)
			}
			back, err := c.t.FromString(c.src, s)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, c.v) && !(isNegZero(back) && isNegZero(c.v)) {
				t.Fatalf("FromString(%q) = %#v, want %#v", *s, back, c.v)
			}
		})
	}
}

func isNegZero(v any) bool {
	f, ok := v.(float64)
	return ok && f == 0 && math.Signbit(f)
}

func TestToString_NaNRoundTrip(t *testing.T) {
	s, err := Identity.ToString(tFloat64, math.NaN())
	if err != nil || *s != "NaN" {
		t.Fatalf("ToString(NaN) = %v, %v", s, err)
	}
	back, err := Identity.FromString(tFloat64, s)
	if f, ok := back.(float64); err != nil || !ok || !math.IsNaN(f) {
		t.Fatalf("FromString(NaN) = %v, %v", back, err)
	}
}

func TestToString_Null(t *testing.T) {
	for _, tr := range []Transform{Identity, Bucket(4), Day, Void} {
		s, err := tr.ToString(tDate, nil)
		if err != nil || s != nil {
			t.Errorf("%s.ToString(nil) = %v, %v; want nil", tr, s, err)
		}
		v, err := tr.FromString(tDate, nil)
		if err != nil || v != nil {
			t.Errorf("%s.FromString(nil) = %v, %v; want nil", tr, v, err)
		}
	}
}

// Every partition value Apply computes survives ToString and FromString.
func TestToString_RoundTripsApply(t *testing.T) {
	tDec := schema.Type{Kind: schema.Decimal, Precision: 10, Scale: 2}
	sources := []struct {
		typ schema.Type
		vs  []any
	}{
		{tInt64, []any{int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64 + 10)}},
		{tDec, []any{dec("10.65", 2), dec("-99999999.99", 2)}},
		{tString, []any{"", "iceberg", "😀😁😂"}},
		{tBinary, []any{[]byte{}, []byte{0, 1, 2, 3}}},
		{tDate, []any{int32(0), int32(-1), int32(math.MinInt32), int32(math.MaxInt32)}},
		{tTimestamp, []any{int64(0), int64(-1), int64(1510871468000001), int64(math.MinInt64 + 1)}},
		{tTime, []any{int64(0), int64(microsPerDay - 1)}},
	}
	for _, tr := range []Transform{Identity, Bucket(7), Truncate(3), Year, Month, Day, Hour, Void} {
		for _, src := range sources {
			if !tr.Accepts(src.typ) {
				continue
			}
			for _, v := range src.vs {
				pv, err := tr.Apply(src.typ, v)
				if errors.Is(err, ErrOverflow) {
					continue
				}
				if err != nil {
					t.Fatalf("%s.Apply(%s, %v): %v", tr, src.typ, v, err)
				}
				s, err := tr.ToString(src.typ, pv)
				if err != nil {
					t.Fatalf("%s.ToString(%s, %v): %v", tr, src.typ, pv, err)
				}
				back, err := tr.FromString(src.typ, s)
				if err != nil || !reflect.DeepEqual(back, pv) {
					t.Fatalf("%s over %s: %#v -> %v -> %#v, %v", tr, src.typ, pv, s, back, err)
				}
			}
		}
	}
}

func TestFromString_Refused(t *testing.T) {
	tDec := schema.Type{Kind: schema.Decimal, Precision: 10, Scale: 2}
	for _, c := range []struct {
		name string
		t    Transform
		src  schema.Type
		s    string
	}{
		{"int/text", Month, tTimestamp, "2026-01"},
		{"int/empty", Bucket(4), tInt64, ""},
		{"bool/1", Identity, tBool, "1"},
		{"decimal/scale", Identity, tDec, "10.5"},
		{"decimal/too-many-digits", Identity, tDec, "10.505"},
		{"binary/odd-hex", Identity, tBinary, "abc"},
		{"date/feb-30", Identity, tDate, "2021-02-30"},
		{"date/5-digit-year", Identity, tDate, "01970-01-01"},
		{"date/out-of-int32", Identity, tDate, "9999999-01-01"},
		{"time/25h", Identity, tTime, "25:00:00"},
		{"time/zero-fraction", Identity, tTime, "10:00:00.000000"},
		{"timestamp/no-Z", Identity, tTimestamp, "2017-11-16T22:31:08"},
		{"timestamp/offset", Identity, tTimestamp, "2017-11-16T22:31:08+01:00"},
		{"timestamp/beyond-int64", Identity, tTimestamp, "294247-01-10T04:00:54.775808Z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.s
			if v, err := c.t.FromString(c.src, &s); !errors.Is(err, ErrBadValue) {
				t.Fatalf("FromString(%q) = %v, %v; want ErrBadValue", c.s, v, err)
			}
		})
	}
	if _, err := Hour.FromString(tDate, new(string)); !errors.Is(err, ErrTransformType) {
		t.Fatalf("hour.FromString over date: %v, want ErrTransformType", err)
	}
	if _, err := Identity.ToString(tInt64, "7"); !errors.Is(err, ErrBadValue) {
		t.Fatalf("ToString of a string as int64: %v, want ErrBadValue", err)
	}
}

func TestDecimal_String(t *testing.T) {
	for _, c := range []struct {
		in    string
		scale int
		want  string
	}{
		{"10.65", 2, "10.65"}, {"10.6", 2, "10.60"}, {"-0.05", 2, "-0.05"}, {"0", 3, "0.000"},
		{"-7", 0, "-7"}, {"1", 38, "1." + "00000000000000000000000000000000000000"},
	} {
		if got := dec(c.in, c.scale).String(); got != c.want {
			t.Errorf("ParseDecimal(%q, %d).String() = %q, want %q", c.in, c.scale, got, c.want)
		}
	}
	for _, bad := range []string{"", ".5", "1.", "1e3", "--1", "1.234"} {
		if _, err := ParseDecimal(bad, 2); !errors.Is(err, ErrBadValue) {
			t.Errorf("ParseDecimal(%q): %v, want ErrBadValue", bad, err)
		}
	}
}
