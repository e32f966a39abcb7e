package iceberg

import (
	"encoding/binary"
	"math"
	"math/big"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

func TestPartitionSummary(t *testing.T) {
	var ints partitionSummary
	for _, v := range []any{int32(5), nil, int32(-3), int32(9)} {
		ints.add(v)
	}
	r := ints.record()
	if !r.ContainsNull || r.ContainsNaN != nil || r.LowerBound == nil ||
		int32(binary.LittleEndian.Uint32(*r.LowerBound)) != -3 || int32(binary.LittleEndian.Uint32(*r.UpperBound)) != 9 {
		t.Errorf("ints: %+v", r)
	}

	var floats partitionSummary
	for _, v := range []any{0.0, math.NaN(), 2.5} {
		floats.add(v)
	}
	r = floats.record()
	lo := math.Float64frombits(binary.LittleEndian.Uint64(*r.LowerBound))
	hi := math.Float64frombits(binary.LittleEndian.Uint64(*r.UpperBound))
	if r.ContainsNull || r.ContainsNaN == nil || !*r.ContainsNaN || lo != 0 || !math.Signbit(lo) || hi != 2.5 {
		t.Errorf("floats: %+v (lower %v, upper %v), want NaN seen, -0.0..2.5", r, lo, hi)
	}

	var onlyNaN partitionSummary
	onlyNaN.add(float32(math.NaN()))
	if r := onlyNaN.record(); r.LowerBound != nil || r.ContainsNaN == nil || !*r.ContainsNaN {
		t.Errorf("only NaN: %+v, want no bounds", r)
	}

	var strs partitionSummary
	for _, v := range []any{"us", "eu", "apac"} {
		strs.add(v)
	}
	if r := strs.record(); string(*r.LowerBound) != "apac" || string(*r.UpperBound) != "us" {
		t.Errorf("strings: %q..%q", *r.LowerBound, *r.UpperBound)
	}

	var decs partitionSummary
	decs.add(*big.NewRat(1, 2))
	if r := decs.record(); r.LowerBound != nil || r.UpperBound != nil {
		t.Errorf("decimals: bounds %v..%v, want none", r.LowerBound, r.UpperBound)
	}
}

// TestBound_ReencodesWidenedColumns: a bound written while a column was an
// int (4 bytes) is exported in the long encoding once the column is a
// bigint, and float zeros cover both signs.
func TestBound_ReencodesWidenedColumns(t *testing.T) {
	narrow := binary.LittleEndian.AppendUint32(nil, uint32(0xFFFFFFFF)) // int -1
	got := bound(typeOf("int64"), narrow, false)
	if len(got) != 8 || int64(binary.LittleEndian.Uint64(got)) != -1 {
		t.Errorf("widened bound %x, want 8-byte -1", got)
	}
	pz := binary.LittleEndian.AppendUint64(nil, math.Float64bits(0))
	if lo := bound(typeOf("float64"), pz, false); !math.Signbit(math.Float64frombits(binary.LittleEndian.Uint64(lo))) {
		t.Errorf("lower bound of +0.0 not widened to -0.0")
	}
	nz := binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.Copysign(0, -1)))
	if hi := bound(typeOf("float64"), nz, true); math.Signbit(math.Float64frombits(binary.LittleEndian.Uint64(hi))) {
		t.Errorf("upper bound of -0.0 not widened to +0.0")
	}
}

func typeOf(s string) schema.Type {
	t, err := schema.ParseType(s)
	if err != nil {
		panic(err)
	}
	return t
}
