package datafile_test

import (
	"errors"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

var fuzzKinds = []schema.Kind{
	schema.Bool, schema.Int8, schema.Int16, schema.Int32, schema.Int64,
	schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64,
	schema.Float32, schema.Float64, schema.Decimal, schema.String, schema.Binary,
	schema.Date, schema.Time, schema.Timestamp, schema.JSON,
}

// FuzzDecodeBound: any bytes, for any column type, decode to a value or
// to ErrBadBound, never a panic; a decoded value of the column's own width
// re-encodes to the same bytes.
func FuzzDecodeBound(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint8(0), []byte{1})
	f.Add(uint8(4), uint8(0), uint8(0), []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(uint8(4), uint8(0), uint8(0), []byte{1, 2, 3, 4})
	f.Add(uint8(10), uint8(0), uint8(0), []byte{0, 0, 0x80, 0x7f, 0, 0, 0, 0})
	f.Add(uint8(11), uint8(12), uint8(2), []byte{0xff, 0x85})
	f.Add(uint8(11), uint8(38), uint8(10), []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add(uint8(12), uint8(0), uint8(0), []byte("h\xffllo"))
	f.Add(uint8(16), uint8(0), uint8(0), []byte{})
	f.Fuzz(func(t *testing.T, kind, prec, scale uint8, b []byte) {
		typ := schema.Type{Kind: fuzzKinds[int(kind)%len(fuzzKinds)]}
		if typ.Kind == schema.Decimal {
			typ.Precision = 1 + int(prec)%38
			typ.Scale = int(scale) % (typ.Precision + 1)
		}
		v, err := datafile.DecodeBound(typ, b)
		if err != nil {
			if !errors.Is(err, datafile.ErrBadBound) {
				t.Fatalf("DecodeBound(%s, %x): error %v is not ErrBadBound", typ, b, err)
			}
			return
		}
		enc, err := datafile.EncodeBound(typ, v)
		if err != nil {
			// A narrower (pre-widening) bound decodes to the wider Go
			// value; it need not re-encode.
			return
		}
		if v2, err := datafile.DecodeBound(typ, enc); err != nil {
			t.Fatalf("DecodeBound(%s, EncodeBound(%v) = %x): %v", typ, v, enc, err)
		} else if !equalBound(v, v2) {
			t.Fatalf("%s: %x decodes to %v, re-encoded %x decodes to %v", typ, b, v, enc, v2)
		}
	})
}

func equalBound(a, b any) bool {
	if x, ok := a.([]byte); ok {
		y, ok := b.([]byte)
		return ok && string(x) == string(y)
	}
	if x, ok := a.(interface{ String() string }); ok {
		y, ok := b.(interface{ String() string })
		return ok && x.String() == y.String()
	}
	if x, ok := a.(float64); ok && x != x {
		y, ok := b.(float64)
		return ok && y != y
	}
	if x, ok := a.(float32); ok && x != x {
		y, ok := b.(float32)
		return ok && y != y
	}
	return a == b
}
