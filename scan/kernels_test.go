package scan

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// gmsCmp is the scalar reference: GMS's float comparison (NaN equal to
// everything).
func gmsCmp(a, b float64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

func floatColumn(rng *rand.Rand, n int) ([]float64, []bool, *array.Float64) {
	b := array.NewFloat64Builder(memory.DefaultAllocator)
	vals, valid := make([]float64, n), make([]bool, n)
	for i := range vals {
		switch rng.Intn(8) {
		case 0:
			b.AppendNull()
			continue
		case 1:
			vals[i] = math.NaN()
		default:
			vals[i] = float64(rng.Intn(21) - 10)
		}
		valid[i] = true
		b.Append(vals[i])
	}
	return vals, valid, b.NewFloat64Array()
}

func TestFilterKernels_MatchScalar(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	vals, valid, arr := floatColumn(rng, 500)
	defer arr.Release()
	ib := array.NewInt32Builder(memory.DefaultAllocator)
	ivals := make([]int64, 500)
	for i := range ivals {
		if !valid[i] {
			ib.AppendNull()
			continue
		}
		ivals[i] = int64(rng.Intn(21) - 10)
		ib.Append(int32(ivals[i]))
	}
	iarr := ib.NewInt32Array()
	defer iarr.Release()
	for _, op := range []Op{OpEq, OpLt, OpLe, OpGt, OpGe, OpIn, OpIsNull, OpNotNull} {
		for _, lit := range []float64{-3, 0, 4} {
			lits := []float64{lit}
			if op == OpIn {
				lits = append(lits, lit+2)
			}
			var ilits []int64
			for _, l := range lits {
				ilits = append(ilits, int64(l))
			}
			for _, c := range []struct {
				name string
				got  []int32
				ref  func(i int) bool
			}{
				{"float", filterSel(arr, vecPred{op: op, flts: lits}, allRows(500)), func(i int) bool {
					return refMatch(op, valid[i], lits, func(l float64) int { return gmsCmp(vals[i], l) })
				}},
				{"int", filterSel(iarr, vecPred{op: op, ints: ilits}, allRows(500)), func(i int) bool {
					return refMatch(op, valid[i], lits, func(l float64) int { return gmsCmp(float64(ivals[i]), l) })
				}},
			} {
				var want []int32
				for i := 0; i < 500; i++ {
					if c.ref(i) {
						want = append(want, int32(i))
					}
				}
				if len(want) != len(c.got) {
					t.Fatalf("%s op %d lit %v: %d rows, scalar %d", c.name, op, lits, len(c.got), len(want))
				}
				for k := range want {
					if want[k] != c.got[k] {
						t.Fatalf("%s op %d lit %v: row %d vs %d", c.name, op, lits, c.got[k], want[k])
					}
				}
			}
		}
	}
}

func refMatch(op Op, valid bool, lits []float64, cmp func(float64) int) bool {
	switch op {
	case OpIsNull:
		return !valid
	case OpNotNull:
		return valid
	}
	if !valid {
		return false
	}
	for _, l := range lits {
		if match(op, cmp(l)) {
			return true
		}
	}
	return false
}

func allRows(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

// TestAggKernels_MatchScalar: MIN/MAX/SUM over floats with NaNs and
// NULLs, split into partials merged in order, equal GMS's one-row-at-a-
// time buffers (first value kept unless strictly better).
func TestAggKernels_MatchScalar(t *testing.T) {
	f64 := schema.Type{Kind: schema.Float64}
	for seed := int64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		n := 1 + rng.Intn(60)
		vals, valid, arr := floatColumn(rng, n)
		groups := make([]int32, n)
		for i := range groups {
			groups[i] = int32(rng.Intn(3))
		}
		for _, kind := range []AggKind{AggMin, AggMax, AggSum, AggCount, AggAvg} {
			// Reference.
			type ref struct {
				has bool
				v   float64
				n   int64
			}
			refs := make([]ref, 3)
			for i := 0; i < n; i++ {
				if !valid[i] {
					continue
				}
				r := &refs[groups[i]]
				switch {
				case !r.has:
					r.v = vals[i]
				case kind == AggMin && gmsCmp(vals[i], r.v) < 0, kind == AggMax && gmsCmp(vals[i], r.v) > 0:
					r.v = vals[i]
				case kind == AggSum || kind == AggAvg:
					r.v += vals[i]
				}
				r.has = true
				r.n++
			}
			// Vectorised: two partials split at a random row, merged.
			cut := rng.Intn(n + 1)
			total := newAccum(kind, f64, 0)
			total.grow(3)
			for _, part := range [][2]int{{0, cut}, {cut, n}} {
				acc := newAccum(kind, f64, 0)
				acc.grow(3)
				sel, gid := []int32{}, []int32{}
				for i := part[0]; i < part[1]; i++ {
					sel, gid = append(sel, int32(i)), append(gid, groups[i])
				}
				acc.update(arr, sel, gid)
				total.merge(acc, []int32{0, 1, 2})
			}
			for g := 0; g < 3; g++ {
				got := total.result(g)
				var want any
				switch {
				case kind == AggCount:
					want = refs[g].n
				case !refs[g].has:
					want = nil
				case kind == AggAvg:
					want = refs[g].v / float64(refs[g].n)
				default:
					want = refs[g].v
				}
				if !sameValue(got, want) {
					t.Fatalf("seed %d kind %d group %d: got %v, scalar %v", seed, kind, g, got, want)
				}
			}
		}
		arr.Release()
	}
}

func sameValue(a, b any) bool {
	fa, ok1 := a.(float64)
	fb, ok2 := b.(float64)
	if ok1 && ok2 {
		return fa == fb || (math.IsNaN(fa) && math.IsNaN(fb))
	}
	return a == b
}

// TestFilterKernels_IntegerFastPaths: the branch-free loops for a raw
// DECIMAL (unscaled int64) and a DATE against one literal, with and
// without NULLs (the general loops), keep exactly the rows the scalar
// comparison keeps, from a selection that is not every row.
func TestFilterKernels_IntegerFastPaths(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	const n = 500
	for _, nulls := range []bool{false, true} {
		ib, db := array.NewInt64Builder(memory.DefaultAllocator), array.NewDate32Builder(memory.DefaultAllocator)
		vals := make([]int64, n)
		valid := make([]bool, n)
		for i := range n {
			vals[i], valid[i] = int64(rng.Intn(41)-20), !nulls || rng.Intn(5) > 0
			if valid[i] {
				ib.Append(vals[i])
				db.Append(arrow.Date32(vals[i]))
			} else {
				ib.AppendNull()
				db.AppendNull()
			}
		}
		ints, dates := ib.NewInt64Array(), db.NewDate32Array()
		for _, op := range []Op{OpEq, OpLt, OpLe, OpGt, OpGe} {
			for _, l := range []int64{-21, -20, -3, 0, 7, 20, 21} {
				var sel []int32
				for i := range n {
					if i%3 != 1 {
						sel = append(sel, int32(i))
					}
				}
				var want []int32
				for _, i := range sel {
					if valid[i] && match(op, cmp3(vals[i], l)) {
						want = append(want, i)
					}
				}
				got := filterSel(ints, vecPred{op: op, decs: []decimal128.Num{decimal128.FromI64(l)}}, slices.Clone(sel))
				if !slices.Equal(got, want) {
					t.Errorf("raw decimal, nulls %v, op %d, literal %d: got %v, want %v", nulls, op, l, got, want)
				}
				got = filterSel(dates, vecPred{op: op, ints: []int64{l * 86400 * 1e6}}, slices.Clone(sel))
				if !slices.Equal(got, want) {
					t.Errorf("date, nulls %v, op %d, literal %d days: got %v, want %v", nulls, op, l, got, want)
				}
			}
		}
		ints.Release()
		dates.Release()
		ib.Release()
		db.Release()
	}
}
