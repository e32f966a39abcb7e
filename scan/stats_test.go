package scan

import (
	"testing"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// TestAllMatch: a row group is "wholly inside" a predicate only when its
// stats prove every row matches; anything unknown says no.
func TestAllMatch(t *testing.T) {
	i64 := schema.Type{Kind: schema.Int64}
	st := func(lo, hi any, nulls int64) colStats {
		return colStats{lower: lo, upper: hi, nulls: nulls, values: 10}
	}
	pred := func(op Op, vs ...any) Predicate { return Predicate{Type: i64, Op: op, Values: vs} }
	cases := []struct {
		name string
		st   colStats
		p    Predicate
		want bool
	}{
		{"ge inside", st(int64(5), int64(9), 0), pred(OpGe, int64(5)), true},
		{"ge straddles", st(int64(4), int64(9), 0), pred(OpGe, int64(5)), false},
		{"gt at the bound", st(int64(5), int64(9), 0), pred(OpGt, int64(5)), false},
		{"gt inside", st(int64(6), int64(9), 0), pred(OpGt, int64(5)), true},
		{"lt inside", st(int64(1), int64(4), 0), pred(OpLt, int64(5)), true},
		{"lt at the bound", st(int64(1), int64(5), 0), pred(OpLt, int64(5)), false},
		{"le at the bound", st(int64(1), int64(5), 0), pred(OpLe, int64(5)), true},
		{"eq single value", st(int64(5), int64(5), 0), pred(OpEq, int64(5)), true},
		{"eq range", st(int64(5), int64(6), 0), pred(OpEq, int64(5)), false},
		{"in one of", st(int64(7), int64(7), 0), pred(OpIn, int64(5), int64(7)), true},
		{"NULLs present", st(int64(5), int64(9), 1), pred(OpGe, int64(5)), false},
		{"NULLs unknown", st(int64(5), int64(9), -1), pred(OpGe, int64(5)), false},
		{"no upper bound", st(int64(5), nil, 0), pred(OpGe, int64(5)), false},
		{"is null, all NULL", colStats{nulls: 10, values: 10}, pred(OpIsNull), true},
		{"is null, some", colStats{nulls: 3, values: 10}, pred(OpIsNull), false},
		{"not null, none", st(int64(1), int64(2), 0), pred(OpNotNull), true},
		{"not null, unknown", st(int64(1), int64(2), -1), pred(OpNotNull), false},
	}
	for _, c := range cases {
		if got := c.st.allMatch(c.p); got != c.want {
			t.Errorf("%s: allMatch = %v, want %v", c.name, got, c.want)
		}
		if c.want && !c.st.mightMatch(c.p) {
			t.Errorf("%s: allMatch but not mightMatch", c.name)
		}
	}
}
