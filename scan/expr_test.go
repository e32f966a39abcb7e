package scan

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
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
