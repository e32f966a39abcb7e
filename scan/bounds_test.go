package scan

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// boundsColumns are the columns of the equivalence fixture, by field id.
var boundsColumns = []schema.Column{
	{ID: 1, Name: "i64", Type: schema.Type{Kind: schema.Int64}},
	{ID: 2, Name: "f64", Type: schema.Type{Kind: schema.Float64}},
	{ID: 3, Name: "s", Type: schema.Type{Kind: schema.String}},
	{ID: 4, Name: "d", Type: schema.Type{Kind: schema.Date}},
	{ID: 5, Name: "dec", Type: schema.Type{Kind: schema.Decimal, Precision: 12, Scale: 2}},
	{ID: 6, Name: "i32", Type: schema.Type{Kind: schema.Int32}},
	{ID: 7, Name: "f32", Type: schema.Type{Kind: schema.Float32}},
	{ID: 8, Name: "ts", Type: schema.Type{Kind: schema.Timestamp}},
	{ID: 9, Name: "u64", Type: schema.Type{Kind: schema.Uint64}},
	{ID: 10, Name: "b", Type: schema.Type{Kind: schema.Bool}},
	{ID: 11, Name: "added", Type: schema.Type{Kind: schema.Int64}}, // no file has it
}

// rawBound encodes x as column c's bound would be (little-endian ints and
// floats, dates in days, decimals unscaled), sometimes at a wrong length.
func rawBound(r *rand.Rand, c schema.Column, x int64) []byte {
	if r.IntN(40) == 0 {
		return make([]byte, r.IntN(3)+5) // undecodable: no bound
	}
	switch c.Type.Kind {
	case schema.Int64, schema.Timestamp, schema.Uint64:
		if c.Type.Kind == schema.Timestamp {
			x *= dayMicros
		}
		if c.Type.Kind == schema.Int64 && r.IntN(5) == 0 {
			return binary.LittleEndian.AppendUint32(nil, uint32(int32(x))) // written while int32
		}
		if c.Type.Kind == schema.Uint64 && r.IntN(10) == 0 {
			return binary.LittleEndian.AppendUint64(nil, uint64(math.MaxInt64)+uint64(x)+1) // beyond int64
		}
		return binary.LittleEndian.AppendUint64(nil, uint64(x))
	case schema.Int32, schema.Date:
		return binary.LittleEndian.AppendUint32(nil, uint32(int32(x)))
	case schema.Float64:
		f := float64(x) / 2
		if r.IntN(10) == 0 {
			return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(f))) // written as float32
		}
		if r.IntN(20) == 0 {
			f = math.NaN()
		}
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f))
	case schema.Float32:
		return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(x)/2))
	case schema.String:
		return []byte(fmt.Sprintf("k%03d", x))
	case schema.Decimal:
		b, err := datafile.EncodeBound(c.Type, big.NewInt(x*100+7))
		if err != nil {
			panic(err)
		}
		return b
	case schema.Bool:
		return []byte{byte(x & 1)}
	}
	panic("no bound for " + c.Type.String())
}

// boundsFixture makes files with every shape of stats the per-file logic
// distinguishes: states, missing columns and arrays, absent, undecodable
// and truncated bounds, unknown and all-null counts, NaN counts.
func boundsFixture(seed uint64, n int) []manifest.DataFile {
	r := rand.New(rand.NewPCG(seed, 1))
	files := make([]manifest.DataFile, n)
	for i := range files {
		f := manifest.DataFile{Path: fmt.Sprintf("f%d", i), RecordCount: int64(10 + r.IntN(5)), StatsState: manifest.StatsProvided}
		switch r.IntN(12) {
		case 0:
			f.StatsState = manifest.StatsPending
		case 1:
			f.StatsState = manifest.StatsFailed
		case 2:
			f.StatsState = ""
		}
		cols := r.Perm(10) // field ids in varying order; some dropped
		if r.IntN(3) > 0 {
			cols = cols[:10-r.IntN(3)]
		}
		var noNaN, noNull bool = r.IntN(15) == 0, r.IntN(15) == 0
		for _, k := range cols {
			c := boundsColumns[k]
			lo := int64(r.IntN(100)) - 20
			hi := lo + int64(r.IntN(30))
			if c.Type.Kind == schema.Bool {
				lo, hi = int64(r.IntN(2)), 1
			}
			f.FieldIDs = append(f.FieldIDs, c.ID)
			f.ValueCounts = append(f.ValueCounts, []int64{f.RecordCount, f.RecordCount, -1}[r.IntN(3)])
			f.NullCounts = append(f.NullCounts, []int64{0, 0, 1, -1, f.RecordCount}[r.IntN(5)])
			f.NaNCounts = append(f.NaNCounts, []int64{0, 0, 0, 1, -1}[r.IntN(5)])
			var lb, ub []byte
			if r.IntN(8) > 0 {
				lb = rawBound(r, c, lo)
			}
			if r.IntN(8) > 0 {
				ub = rawBound(r, c, hi)
			}
			f.LowerBounds = append(f.LowerBounds, lb)
			f.UpperBounds = append(f.UpperBounds, ub)
			f.BoundsExact = append(f.BoundsExact, r.IntN(6) > 0)
		}
		if noNaN {
			f.NaNCounts = nil
		}
		if noNull {
			f.NullCounts = nil
		}
		files[i] = f
	}
	return files
}

// literals returns predicate values in column c's comparison domain
// (literalValue), plus, for numbers, one from the other numeric domain.
func literals(c schema.Column) []any {
	var out []any
	for _, x := range []int64{-30, -5, 0, 3, 17, 42, 60, 99, 140} {
		switch c.Type.Kind {
		case schema.Int64, schema.Int32, schema.Uint64:
			out = append(out, x)
		case schema.Bool:
			out = append(out, x&1)
		case schema.Date, schema.Timestamp:
			out = append(out, x*dayMicros)
		case schema.Float64, schema.Float32:
			out = append(out, float64(x)/2)
		case schema.String:
			out = append(out, fmt.Sprintf("k%03d", x))
		case schema.Decimal:
			out = append(out, decimal.New(x*100+7, -2))
		}
	}
	switch c.Type.Kind {
	case schema.Int64, schema.Int32:
		out = append(out, 17.5) // a float against an int column: decided per file
	case schema.Float64:
		out = append(out, int64(8))
	}
	return out
}

func TestBoundsPrune_MatchesPerFile(t *testing.T) {
	files := boundsFixture(7, 400)
	ops := []Op{OpEq, OpLt, OpLe, OpGt, OpGe, OpIn, OpIsNull, OpNotNull}
	var single []Predicate
	for _, c := range boundsColumns {
		lits := literals(c)
		for _, op := range ops {
			switch op {
			case OpIsNull, OpNotNull:
				single = append(single, Predicate{FieldID: c.ID, Type: c.Type, Op: op})
			case OpIn:
				single = append(single, Predicate{FieldID: c.ID, Type: c.Type, Op: op, Values: []any{lits[1], lits[5], lits[7]}})
			default:
				for _, v := range lits {
					single = append(single, Predicate{FieldID: c.ID, Type: c.Type, Op: op, Values: []any{v}})
				}
			}
		}
	}
	cases := make(map[string][]Predicate)
	for _, p := range single {
		cases[fmt.Sprintf("%d/%d/%v", p.FieldID, p.Op, p.Values)] = []Predicate{p}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 { // conjunctions, BETWEEN among them (>= and <= on one column)
		k := 2 + r.IntN(3)
		var conj []Predicate
		for range k {
			conj = append(conj, single[r.IntN(len(single))])
		}
		cases[fmt.Sprintf("and%v", conj)] = conj
	}
	pr := NewPruner(DefaultPrunerBytes)
	pruned := 0
	for name, preds := range cases {
		want := pruneFiles(files, nil, preds)
		if got := Prune(files, nil, preds); paths(got) != paths(want) {
			t.Fatalf("%s: Prune kept %v, per-file logic %v", name, paths(got), paths(want))
		}
		if got := pr.Prune("m1", files, nil, preds); paths(got) != paths(want) {
			t.Fatalf("%s: Pruner kept %v, per-file logic %v", name, paths(got), paths(want))
		}
		if len(want) < len(files) {
			pruned++
		}
	}
	// The fixture must exercise pruning, not only keeping.
	if pruned < len(cases)/3 {
		t.Fatalf("only %d of %d cases pruned anything", pruned, len(cases))
	}
}

func TestBoundsPrune_WithPartitions(t *testing.T) {
	files := fixture(t)
	for _, preds := range [][]Predicate{
		{{FieldID: 3, Type: planSchema.Columns[2].Type, Op: OpEq, Values: []any{int64(19724) * dayMicros}}},
		{{FieldID: 1, Type: planSchema.Columns[0].Type, Op: OpGe, Values: []any{int64(15)}}, {FieldID: 3, Type: planSchema.Columns[2].Type, Op: OpLt, Values: []any{int64(19725) * dayMicros}}},
		{{FieldID: 2, Type: planSchema.Columns[1].Type, Op: OpIsNull}},
	} {
		want := pruneFiles(files, planSpecs, preds)
		if got := Prune(files, planSpecs, preds); paths(got) != paths(want) {
			t.Fatalf("%v: kept %v, per-file logic %v", preds, paths(got), paths(want))
		}
	}
}

// TestDecodeTyped_MatchesBoundValue pins the unboxed decoders to the
// reference boundValue (datafile.DecodeBound + domainValue) on every
// length 0..9 and a spread of bit patterns, NaN and overflow included.
func TestDecodeTyped_MatchesBoundValue(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	kinds := []schema.Kind{schema.Bool, schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16,
		schema.Uint32, schema.Uint64, schema.Date, schema.Time, schema.Timestamp, schema.Float32, schema.Float64}
	for _, k := range kinds {
		typ := schema.Type{Kind: k}
		for n := 0; n <= 9; n++ {
			for range 200 {
				b := make([]byte, n)
				for j := range b {
					b[j] = byte(r.Uint32())
				}
				if r.IntN(10) == 0 && n >= 4 { // NaN or the sign bit
					copy(b[n-4:], []byte{0xff, 0xff, 0xff, 0xff})
				}
				want := boundValue(typ, b)
				var got any
				if domainOf(k) == bdFloat {
					if v, ok := decodeFloat(k, b); ok {
						got = v
					}
				} else if v, ok := decodeInt(k, b); ok {
					got = v
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s % x: decoded %v (%T), boundValue %v (%T)", k, b, got, got, want, want)
				}
			}
		}
	}
}

func TestPruner_ReusesAndBounds(t *testing.T) {
	files := boundsFixture(11, 200)
	preds := []Predicate{{FieldID: 1, Type: boundsColumns[0].Type, Op: OpGe, Values: []any{int64(42)}}}
	pr := NewPruner(DefaultPrunerBytes)
	first := pr.Prune("a", files, nil, preds)
	size := pr.Size()
	if size <= 0 || pr.Len() != 1 {
		t.Fatalf("after one prune: %d entries, %d bytes", pr.Len(), size)
	}
	again := pr.Prune("a", files, nil, preds)
	if paths(first) != paths(again) || pr.Size() != size {
		t.Fatalf("second prune of the same column: kept %d then %d, size %d then %d", len(first), len(again), size, pr.Size())
	}
	pr.Prune("a", files, nil, []Predicate{{FieldID: 2, Type: boundsColumns[1].Type, Op: OpLt, Values: []any{1.5}}})
	if pr.Size() <= size {
		t.Fatalf("a second column did not grow the entry: %d -> %d", size, pr.Size())
	}

	// A budget of four manifests' single columns keeps the four most
	// recent of five and evicts the oldest.
	small := NewPruner(4*size + 100)
	for _, k := range []string{"m1", "m2", "m3", "m4", "m5"} {
		small.Prune(k, files, nil, preds)
	}
	if small.Size() > 4*size+100 {
		t.Fatalf("pruner holds %d bytes, budget %d", small.Size(), 4*size+100)
	}
	if _, ok := small.byKey["m1"]; ok || small.Len() != 4 {
		t.Fatalf("oldest manifest kept: %d entries", small.Len())
	}
	// Entries larger than a quarter of the budget are not kept, but still answer.
	tiny := NewPruner(size)
	if got := tiny.Prune("x", files, nil, preds); paths(got) != paths(first) || tiny.Len() != 0 {
		t.Fatalf("over-budget prune: kept %d files, %d entries", len(got), tiny.Len())
	}
	// A key reused for different entries is rebuilt, not trusted.
	other := boundsFixture(12, 150)
	if got, want := pr.Prune("a", other, nil, preds), pruneFiles(other, nil, preds); paths(got) != paths(want) {
		t.Fatalf("reused key: kept %v, want %v", paths(got), paths(want))
	}
}
