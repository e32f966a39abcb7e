package datafile_test

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

func typ(k schema.Kind) schema.Type { return schema.Type{Kind: k} }

func dec(p, s int) schema.Type { return schema.Type{Kind: schema.Decimal, Precision: p, Scale: s} }

// TestBound_AppendixDVectors pins EncodeBound/DecodeBound to the Iceberg
// spec's Appendix D (reference/iceberg-transform-vectors.md), using the
// values of the Appendix B vectors, plus pre-1970 and non-BMP values and
// the widened encodings lakesql uses for int8/int16/uint*.
func TestBound_AppendixDVectors(t *testing.T) {
	le64 := func(v int64) []byte {
		b := make([]byte, 8)
		for i := range b {
			b[i] = byte(uint64(v) >> (8 * i))
		}
		return b
	}
	cases := []struct {
		name string
		t    schema.Type
		v    any
		want []byte
	}{
		{"appendixD/boolean/false", typ(schema.Bool), false, []byte{0}},
		{"appendixD/boolean/true", typ(schema.Bool), true, []byte{1}},
		{"appendixD/int/34", typ(schema.Int32), int64(34), []byte{0x22, 0, 0, 0}},
		{"appendixD/int/min", typ(schema.Int32), int64(math.MinInt32), []byte{0, 0, 0, 0x80}},
		{"appendixD/int/int8=-2", typ(schema.Int8), int64(-2), []byte{0xfe, 0xff, 0xff, 0xff}},
		{"appendixD/int/int16=-32768", typ(schema.Int16), int64(-32768), []byte{0x00, 0x80, 0xff, 0xff}},
		{"appendixD/int/uint8=255", typ(schema.Uint8), int64(255), []byte{0xff, 0, 0, 0}},
		{"appendixD/int/uint16=65535", typ(schema.Uint16), int64(65535), []byte{0xff, 0xff, 0, 0}},
		{"appendixD/long/34", typ(schema.Int64), int64(34), []byte{0x22, 0, 0, 0, 0, 0, 0, 0}},
		{"appendixD/long/-1", typ(schema.Int64), int64(-1), le64(-1)},
		{"appendixD/long/uint32=max", typ(schema.Uint32), int64(math.MaxUint32), []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}},
		{"appendixD/long/uint64=max", typ(schema.Uint64), uint64(math.MaxUint64), le64(-1)},
		{"appendixD/float/1.0", typ(schema.Float32), 1.0, []byte{0, 0, 0x80, 0x3f}},
		{"appendixD/float/-0.0", typ(schema.Float32), math.Copysign(0, -1), []byte{0, 0, 0, 0x80}},
		{"appendixD/double/1.0", typ(schema.Float64), 1.0, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{"appendixD/double/-7.25", typ(schema.Float64), -7.25, []byte{0, 0, 0, 0, 0, 0, 0x1d, 0xc0}},
		{"appendixD/date/2017-11-16", typ(schema.Date), int32(17486), []byte{0x4e, 0x44, 0, 0}},
		{"appendixD/date/1969-12-31", typ(schema.Date), int32(-1), []byte{0xff, 0xff, 0xff, 0xff}},
		{"appendixD/date/0001-01-01", typ(schema.Date), int32(-719162), []byte{0xc6, 0x06, 0xf5, 0xff}},
		{"appendixD/time/22:31:08", typ(schema.Time), int64(81_068_000_000), le64(81_068_000_000)},
		{"appendixD/timestamp/2017-11-16T22:31:08", typ(schema.Timestamp), int64(1_510_871_468_000_000), le64(1_510_871_468_000_000)},
		{"appendixD/timestamp/2017-11-16T22:31:08.000001", typ(schema.Timestamp), int64(1_510_871_468_000_001), le64(1_510_871_468_000_001)},
		{"appendixD/timestamp/1969-12-31T23:59:59.999999", typ(schema.Timestamp), int64(-1), le64(-1)},
		{"appendixD/string/iceberg", typ(schema.String), "iceberg", []byte("iceberg")},
		{"appendixD/string/empty", typ(schema.String), "", []byte{}},
		{"appendixD/string/non-BMP", typ(schema.String), "😀", []byte{0xf0, 0x9f, 0x98, 0x80}},
		{"appendixD/string/json", typ(schema.JSON), `{"a":1}`, []byte(`{"a":1}`)},
		{"appendixD/binary/00010203", typ(schema.Binary), []byte{0, 1, 2, 3}, []byte{0, 1, 2, 3}},
		{"appendixD/decimal/14.20", dec(9, 2), big.NewInt(1420), []byte{0x05, 0x8c}},
		{"appendixD/decimal/-14.20", dec(9, 2), big.NewInt(-1420), []byte{0xfa, 0x74}},
		{"appendixD/decimal/0", dec(9, 0), big.NewInt(0), []byte{0x00}},
		{"appendixD/decimal/127", dec(9, 0), big.NewInt(127), []byte{0x7f}},
		{"appendixD/decimal/128", dec(9, 0), big.NewInt(128), []byte{0x00, 0x80}},
		{"appendixD/decimal/-1", dec(9, 0), big.NewInt(-1), []byte{0xff}},
		{"appendixD/decimal/-128", dec(9, 0), big.NewInt(-128), []byte{0x80}},
		{"appendixD/decimal/-129", dec(9, 0), big.NewInt(-129), []byte{0xff, 0x7f}},
		{"appendixD/decimal/38 nines", dec(38, 0), func() *big.Int {
			n, _ := new(big.Int).SetString("99999999999999999999999999999999999999", 10)
			return n
		}(), []byte{0x4b, 0x3b, 0x4c, 0xa8, 0x5a, 0x86, 0xc4, 0x7a, 0x09, 0x8a, 0x22, 0x3f, 0xff, 0xff, 0xff, 0xff}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := datafile.EncodeBound(c.t, c.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(c.want) {
				t.Fatalf("EncodeBound = % x, want % x", got, c.want)
			}
			back, err := datafile.DecodeBound(c.t, got)
			if err != nil {
				t.Fatal(err)
			}
			if f, ok := c.v.(float64); ok && f == 0 {
				if back.(float64) != 0 || !math.Signbit(back.(float64)) {
					t.Fatalf("DecodeBound = %v, want -0", back)
				}
				return
			}
			if !sameValue(back, c.v) {
				t.Fatalf("DecodeBound = %v (%T), want %v (%T)", back, back, c.v, c.v)
			}
		})
	}
}

// TestDecodeBound_PromotedLengths: bounds are not rewritten on promotion,
// so a short bound is read as the narrower type (Appendix D notes).
func TestDecodeBound_PromotedLengths(t *testing.T) {
	four := []byte{0xfe, 0xff, 0xff, 0xff} // int -2
	for _, c := range []struct {
		name string
		t    schema.Type
		b    []byte
		want any
	}{
		{"appendixD/promotion/int->long", typ(schema.Int64), four, int64(-2)},
		{"appendixD/promotion/uint16->uint32", typ(schema.Uint32), []byte{0xff, 0xff, 0, 0}, int64(65535)},
		{"appendixD/promotion/uint16->uint64", typ(schema.Uint64), []byte{0xff, 0xff, 0, 0}, uint64(65535)},
		{"appendixD/promotion/float->double", typ(schema.Float64), []byte{0, 0, 0xc0, 0x3f}, 1.5},
		{"appendixD/promotion/decimal(9,2)->decimal(18,2)", dec(18, 2), []byte{0x05, 0x8c}, big.NewInt(1420)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := datafile.DecodeBound(c.t, c.b)
			if err != nil || !sameValue(got, c.want) {
				t.Fatalf("DecodeBound = %v (%T), %v; want %v (%T)", got, got, err, c.want, c.want)
			}
		})
	}
}

func TestBound_ErrBadBound(t *testing.T) {
	for _, c := range []struct {
		name string
		t    schema.Type
		v    any
	}{
		{"int8 out of range", typ(schema.Int8), int64(300)},
		{"uint8 negative", typ(schema.Uint8), int64(-1)},
		{"uint32 over max", typ(schema.Uint32), int64(math.MaxUint32 + 1)},
		{"int as string", typ(schema.Int32), "34"},
		{"float not exact", typ(schema.Float32), 0.1},
		{"decimal too many digits", dec(4, 2), big.NewInt(10000)},
		{"decimal nil", dec(4, 2), (*big.Int)(nil)},
		{"date as int64", typ(schema.Date), int64(1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if b, err := datafile.EncodeBound(c.t, c.v); !errors.Is(err, datafile.ErrBadBound) {
				t.Fatalf("EncodeBound = % x, %v; want ErrBadBound", b, err)
			}
		})
	}
	for _, c := range []struct {
		name string
		t    schema.Type
		b    []byte
	}{
		{"long of 3 bytes", typ(schema.Int64), []byte{1, 2, 3}},
		{"int of 8 bytes", typ(schema.Int32), make([]byte, 8)},
		{"boolean of 2 bytes", typ(schema.Bool), []byte{1, 0}},
		{"empty decimal", dec(9, 2), nil},
		{"decimal of 17 bytes", dec(38, 2), make([]byte, 17)},
		{"date of 8 bytes", typ(schema.Date), make([]byte, 8)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if v, err := datafile.DecodeBound(c.t, c.b); !errors.Is(err, datafile.ErrBadBound) {
				t.Fatalf("DecodeBound = %v, %v; want ErrBadBound", v, err)
			}
		})
	}
}

// TestCompareBounds: decoded bounds of every Go type DecodeBound returns
// order as their values do, round-tripped through the encoding; values of
// different types compare equal.
func TestCompareBounds(t *testing.T) {
	cases := []struct {
		t      schema.Type
		lo, hi any
	}{
		{typ(schema.Bool), false, true},
		{typ(schema.Int32), int64(-5), int64(3)},
		{typ(schema.Int64), int64(math.MinInt64), int64(math.MaxInt64)},
		{typ(schema.Uint64), uint64(1), uint64(math.MaxUint64)},
		{typ(schema.Float64), -0.5, 2.25},
		{typ(schema.Date), int32(-1), int32(19000)},
		{dec(38, 2), big.NewInt(-12345), big.NewInt(99)},
		{typ(schema.String), "a", "ab"},
		{typ(schema.Binary), []byte{0x00}, []byte{0xff}},
	}
	for _, c := range cases {
		var dec []any
		for _, v := range []any{c.lo, c.hi} {
			b, err := datafile.EncodeBound(c.t, v)
			if err != nil {
				t.Fatalf("%s %v: %v", c.t, v, err)
			}
			d, err := datafile.DecodeBound(c.t, b)
			if err != nil {
				t.Fatalf("%s %v: %v", c.t, v, err)
			}
			dec = append(dec, d)
		}
		lo, hi := dec[0], dec[1]
		if got := [3]int{datafile.CompareBounds(lo, hi), datafile.CompareBounds(hi, lo), datafile.CompareBounds(lo, lo)}; got != [3]int{-1, 1, 0} {
			t.Errorf("%s %v vs %v: %v, want [-1 1 0]", c.t, lo, hi, got)
		}
	}
	if got := datafile.CompareBounds(int64(1), "1"); got != 0 {
		t.Errorf("mixed types: %d, want 0", got)
	}
}
