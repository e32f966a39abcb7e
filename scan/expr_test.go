package scan

import (
	"math"
	"math/big"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestInt128Arithmetic: the checked 128-bit kernels equal big.Int
// arithmetic, and report overflow exactly when the result leaves
// (-2^127, 2^127).
func TestInt128Arithmetic(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	limit := new(big.Int).Lsh(big.NewInt(1), 127)
	edges := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(-1), big.NewInt(math.MaxInt64), big.NewInt(math.MinInt64),
		new(big.Int).Sub(limit, big.NewInt(1)), new(big.Int).Add(new(big.Int).Neg(limit), big.NewInt(1)),
		new(big.Int).Lsh(big.NewInt(1), 64), new(big.Int).Lsh(big.NewInt(3), 63), new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 63))}
	random := func() *big.Int {
		if rng.Intn(4) == 0 {
			return edges[rng.Intn(len(edges))]
		}
		x := new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), uint(rng.Intn(127))))
		if rng.Intn(2) == 0 {
			x.Neg(x)
		}
		return x
	}
	inRange := func(x *big.Int) bool { return x.CmpAbs(limit) < 0 }
	for n := 0; n < 200000; n++ {
		a, b := random(), random()
		na, nb := decimal128.FromBigInt(a), decimal128.FromBigInt(b)
		for _, c := range []struct {
			name string
			f    func(x, y decimal128.Num) (decimal128.Num, bool)
			want *big.Int
		}{
			{"+", add128, new(big.Int).Add(a, b)},
			{"-", sub128, new(big.Int).Sub(a, b)},
			{"*", mul128, new(big.Int).Mul(a, b)},
		} {
			got, ok := c.f(na, nb)
			fits := inRange(c.want)
			if c.name == "*" && ok != fits {
				t.Fatalf("%s %s %s: ok %v, in range %v", a, c.name, b, ok, fits)
			}
			if c.name != "*" && ok != (fits || c.want.Cmp(new(big.Int).Neg(limit)) == 0) {
				t.Fatalf("%s %s %s: ok %v, in range %v", a, c.name, b, ok, fits)
			}
			if ok && got.BigInt().Cmp(c.want) != 0 {
				t.Fatalf("%s %s %s = %s, want %s", a, c.name, b, got.BigInt(), c.want)
			}
		}
		if fits64(na) && fits64(nb) {
			if got, want := mul64(a.Int64(), b.Int64()).BigInt(), new(big.Int).Mul(a, b); got.Cmp(want) != 0 {
				t.Fatalf("mul64(%s, %s) = %s, want %s", a, b, got, want)
			}
		}
	}
}

// TestFilterDec64: the int64 fast path of DECIMAL filters keeps exactly
// the rows a 128-bit comparison keeps, NULLs never.
func TestFilterDec64(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	b := array.NewDecimal128Builder(memory.DefaultAllocator, &arrow.Decimal128Type{Precision: 38, Scale: 2})
	defer b.Release()
	var vals []decimal128.Num
	for i := 0; i < 5000; i++ {
		var v decimal128.Num
		switch rng.Intn(5) {
		case 0:
			b.AppendNull()
			vals = append(vals, v)
			continue
		case 1:
			v = decimal128.New(rng.Int63n(1<<40)-(1<<39), rng.Uint64()) // beyond int64
		default:
			v = decimal128.FromI64(rng.Int63n(2001) - 1000)
		}
		b.Append(v)
		vals = append(vals, v)
	}
	a := b.NewDecimal128Array()
	defer a.Release()
	for _, op := range []Op{OpEq, OpLt, OpLe, OpGt, OpGe} {
		for _, l := range []int64{-1000, -1, 0, 7, 999, math.MaxInt64, math.MinInt64} {
			sel := make([]int32, len(vals))
			for i := range sel {
				sel[i] = int32(i)
			}
			got := filterDec64(a, op, l, sel)
			var want []int32
			for i, v := range vals {
				if !a.IsNull(i) && match(op, v.Cmp(decimal128.FromI64(l))) {
					want = append(want, int32(i))
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("op %v literal %d: %d rows kept, want %d", op, l, len(got), len(want))
			}
		}
	}
}
