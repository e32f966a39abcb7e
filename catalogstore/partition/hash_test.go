package partition

import (
	"encoding/hex"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

var (
	tInt32     = schema.Type{Kind: schema.Int32}
	tInt64     = schema.Type{Kind: schema.Int64}
	tString    = schema.Type{Kind: schema.String}
	tBinary    = schema.Type{Kind: schema.Binary}
	tDate      = schema.Type{Kind: schema.Date}
	tTime      = schema.Type{Kind: schema.Time}
	tTimestamp = schema.Type{Kind: schema.Timestamp}
	tBool      = schema.Type{Kind: schema.Bool}
	tFloat32   = schema.Type{Kind: schema.Float32}
	tFloat64   = schema.Type{Kind: schema.Float64}
)

func dec(s string, scale int) Decimal {
	d, err := ParseDecimal(s, scale)
	if err != nil {
		panic(err)
	}
	return d
}

func mustTS(t testing.TB, layout, s string) int64 {
	t.Helper()
	ts, err := time.Parse(layout, s)
	if err != nil {
		t.Fatal(err)
	}
	return ts.UnixMicro()
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil {
		panic(err)
	}
	return b
}

// Reference vectors of MurmurHash3_x86_32 itself (SMHasher and common
// ports), independent of Iceberg.
func TestMurmur3x86_32(t *testing.T) {
	for _, c := range []struct {
		name string
		in   string
		seed uint32
		want uint32
	}{
		{"empty/seed0", "", 0, 0},
		{"empty/seed1", "", 1, 0x514e28b7},
		{"empty/seedffffffff", "", 0xffffffff, 0x81f16f39},
		{"zeros4", "\x00\x00\x00\x00", 0, 0x2362f9de},
		{"tail3", "\x21\x43\x65", 0, 0x7e4a8634},
		{"tail2", "\x21\x43", 0, 0xa0f7b07a},
		{"tail1", "\x21", 0, 0x72661cf4},
		{"quick-fox", "The quick brown fox jumps over the lazy dog", 0, 0x2e4ff723},
		{"hello-world/seed1234", "Hello, world!", 1234, 0xfaf6cdb3},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := murmur3x86_32([]byte(c.in), c.seed); got != c.want {
				t.Fatalf("murmur3(%q, %d) = %#x, want %#x", c.in, c.seed, got, c.want)
			}
		})
	}
}

// TestHashAppendixB pins every hash vector of the Iceberg spec's Appendix B
// (reference/iceberg-transform-vectors.md). lakesql has no timestamptz,
// timestamp_ns, uuid or fixed types: those vectors are converted to the
// types that hold them (timestamp µs UTC, binary).
func TestHashAppendixB(t *testing.T) {
	ts := func(s string) int64 { return mustTS(t, time.RFC3339Nano, s) }
	ns := func(s string) int64 { // timestamp_ns: convert ns to µs first
		n, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return floorDiv(n.UnixNano(), 1000)
	}
	for _, c := range []struct {
		name string
		typ  schema.Type
		v    any
		want int32
	}{
		{"appendixB/int/34", tInt32, int64(34), 2017239379},
		{"appendixB/int/34/int8", schema.Type{Kind: schema.Int8}, int64(34), 2017239379},
		{"appendixB/int/34/uint32", schema.Type{Kind: schema.Uint32}, int64(34), 2017239379},
		{"appendixB/long/34L", tInt64, int64(34), 2017239379},
		{"appendixB/decimal/14.20", schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 2}, dec("14.20", 2), -500754589},
		{"appendixB/date/2017-11-16", tDate, int32(17486), -653330422},
		{"appendixB/time/22:31:08", tTime, int64((22*3600 + 31*60 + 8) * 1_000_000), -662762989},
		{"appendixB/timestamp/2017-11-16T22:31:08", tTimestamp, ts("2017-11-16T22:31:08Z"), -2047944441},
		{"appendixB/timestamp/2017-11-16T22:31:08.000001", tTimestamp, ts("2017-11-16T22:31:08.000001Z"), -1207196810},
		{"appendixB/timestamptz/2017-11-16T14:31:08-08:00", tTimestamp, ts("2017-11-16T14:31:08-08:00"), -2047944441},
		{"appendixB/timestamptz/2017-11-16T14:31:08.000001-08:00", tTimestamp, ts("2017-11-16T14:31:08.000001-08:00"), -1207196810},
		{"appendixB/timestamp_ns/2017-11-16T22:31:08", tTimestamp, ns("2017-11-16T22:31:08Z"), -2047944441},
		{"appendixB/timestamp_ns/2017-11-16T22:31:08.000001001", tTimestamp, ns("2017-11-16T22:31:08.000001001Z"), -1207196810},
		{"appendixB/timestamptz_ns/2017-11-16T14:31:08-08:00", tTimestamp, ns("2017-11-16T14:31:08-08:00"), -2047944441},
		{"appendixB/timestamptz_ns/2017-11-16T14:31:08.000001001-08:00", tTimestamp, ns("2017-11-16T14:31:08.000001001-08:00"), -1207196810},
		{"appendixB/string/iceberg", tString, "iceberg", 1210000089},
		{"appendixB/string/34", tString, "34", -427558391}, // the type-promotion note
		{"appendixB/uuid/f79c3e09-677c-4bbd-a479-3f349cb785e7", tBinary, mustHex("f79c3e09-677c-4bbd-a479-3f349cb785e7"), 1488055340},
		{"appendixB/fixed/00010203", tBinary, []byte{0, 1, 2, 3}, -188683207},
		{"appendixB/binary/00010203", tBinary, []byte{0, 1, 2, 3}, -188683207},
		{"appendixB/boolean/true", tBool, true, 1392991556},
		{"appendixB/float/1.0F", tFloat32, float64(float32(1.0)), -142385009},
		{"appendixB/float/0.0F", tFloat32, float64(float32(0.0)), 1669671676},
		{"appendixB/float/-0.0F", tFloat32, math.Copysign(0, -1), 1669671676},
		{"appendixB/double/1.0D", tFloat64, 1.0, -142385009},
		{"appendixB/double/0.0D", tFloat64, 0.0, 1669671676},
		{"appendixB/double/-0.0D", tFloat64, math.Copysign(0, -1), 1669671676},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Hash(c.typ, c.v)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("Hash(%s, %v) = %d, want %d", c.typ, c.v, got, c.want)
			}
		})
	}
}

// The raw hash functions Appendix B names, on the non-bucketable vectors.
func TestHashAppendixB_RawFunctions(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, c := range []struct {
		name      string
		got, want int32
	}{
		{"appendixB/boolean/true/hashInt(1)", hashInt(1), 1392991556},
		{"appendixB/int/34/hashInt", hashInt(34), 2017239379},
		{"appendixB/long/34L/hashLong", hashLong(34), 2017239379},
		{"appendixB/date/2017-11-16/hashInt", hashInt(17486), -653330422},
		{"appendixB/float/1.0F/hashDouble", hashDouble(float64(float32(1))), -142385009},
		{"appendixB/float/0.0F/hashDouble", hashDouble(float64(float32(0))), 1669671676},
		{"appendixB/float/-0.0F/hashDouble", hashDouble(float64(float32(negZero))), 1669671676},
		{"appendixB/double/1.0D/hashDouble", hashDouble(1), -142385009},
		{"appendixB/double/0.0D/hashDouble", hashDouble(0), 1669671676},
		{"appendixB/double/-0.0D/hashDouble", hashDouble(negZero), 1669671676},
		{"appendixB/double/NaN-canonical", hashDouble(math.Float64frombits(0x7ff0000000000001)), hashLong(0x7ff8000000000000)},
		{"appendixB/string/iceberg/hashBytes", hashBytes([]byte("iceberg")), 1210000089},
		{"appendixB/binary/00010203/hashBytes", hashBytes([]byte{0, 1, 2, 3}), -188683207},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestMinBigEndian(t *testing.T) {
	for _, c := range []struct {
		v    int64
		want string
	}{
		{0, "00"}, {1, "01"}, {127, "7f"}, {128, "0080"}, {255, "00ff"}, {256, "0100"},
		{-1, "ff"}, {-128, "80"}, {-129, "ff7f"}, {-256, "ff00"}, {-257, "feff"},
		{1420, "058c"}, {math.MaxInt64, "7fffffffffffffff"}, {math.MinInt64, "8000000000000000"},
	} {
		if got := hex.EncodeToString(minBigEndian(big.NewInt(c.v))); got != c.want {
			t.Errorf("minBigEndian(%d) = %s, want %s", c.v, got, c.want)
		}
	}
	// Scale does not enter the hash: 14.20 and 1.420 share unscaled 1420.
	a, _ := Hash(schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 2}, dec("14.20", 2))
	b, _ := Hash(schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 3}, dec("1.420", 3))
	if a != b {
		t.Errorf("decimal hash depends on scale: %d vs %d", a, b)
	}
}

func TestHash_Refused(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  schema.Type
		v    any
		want error
	}{
		{"uint64", schema.Type{Kind: schema.Uint64}, uint64(1), ErrTransformType},
		{"json", schema.Type{Kind: schema.JSON}, "{}", ErrTransformType},
		{"null", tInt64, nil, ErrBadValue},
		{"int-as-int", tInt64, 34, ErrBadValue},
		{"int32-out-of-range", tInt32, int64(math.MaxInt32 + 1), ErrBadValue},
		{"decimal-wrong-scale", schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 2}, dec("1.5", 1), ErrBadValue},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Hash(c.typ, c.v); !errors.Is(err, c.want) {
				t.Fatalf("Hash(%s, %v) = %v, want %v", c.typ, c.v, err, c.want)
			}
		})
	}
}
