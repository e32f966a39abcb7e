package scan

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// maxInFilter is the most distinct build keys a runtime filter lists
// (an IN predicate, which dictionaries and bounds prune by); more keys
// filter by their range.
const maxInFilter = 16

// runtimeFilters is jp's AggPlan with a predicate per build key that
// equals a probe field: the probe field lies in the range of the build
// side's keys, or among them when they are few. These are implied by
// the join (a probe row outside them matches no build row), so they
// prune the probe's files, row groups and pages, and drop rows before
// hashing, without changing the result. match is false when no probe
// row can satisfy them.
func (jp *JoinAggPlan) runtimeFilters(bs []*joinBuild) (p *AggPlan, match bool) {
	cp := *jp.agg
	cp.preds, cp.vpreds = slices.Clone(cp.preds), slices.Clone(cp.vpreds)
	for s, st := range jp.stages {
		b := bs[s]
		if st.kind >= JoinAnti {
			continue // a build key excludes probe rows, never admits them
		}
		for k, probe := range st.probeKeys {
			if !probe || b.keys.n == 0 {
				continue
			}
			col := st.on[k]
			t := cp.types[col]
			pred, ok, some := keyFilter(b.cols[st.keys[k]], b.rows, b.keys.n, t)
			if !some {
				return &cp, false
			}
			if !ok {
				continue
			}
			pred.FieldID = cp.fields[col]
			for _, pr := range pred.split() {
				if vp, ok := compileVecPred(pr, col, t); ok {
					cp.preds, cp.vpreds = append(cp.preds, pr), append(cp.vpreds, vp)
				}
			}
		}
	}
	return &cp, true
}

// split is an IN predicate or a range (OpGe then OpLe in Values).
func (p Predicate) split() []Predicate {
	if p.Op == OpIn {
		return []Predicate{p}
	}
	lo, hi := p, p
	lo.Op, lo.Values = OpGe, p.Values[:1]
	hi.Op, hi.Values = OpLe, p.Values[1:]
	return []Predicate{lo, hi}
}

// keyFilter is the predicate on a probe field of type t implied by the
// non-NULL keys rows of a: IN (its distinct values, when the side has at
// most maxInFilter distinct key tuples) or a range with Op OpGe and
// Values {min, max}. ok is false when the keys' type has no filter;
// some is false when no value of type t can equal any key.
func keyFilter(a arrow.Array, rows []int32, distinct int, t schema.Type) (p Predicate, ok, some bool) {
	if len(rows) == 0 {
		return Predicate{}, false, true
	}
	p.Type = t
	if iv, ok := joinIntKeys(a, t); ok {
		lo, hi := intRange(t.Kind)
		if t.Kind == schema.Date || t.Kind == schema.Timestamp {
			lo, hi = -1<<63, 1<<63-1
		}
		min, max := int64(1<<63-1), int64(-1<<63)
		var set []any
		for _, i := range rows {
			v := iv(int(i))
			min, max = mini(min, v), maxi(max, v)
			if distinct <= maxInFilter && v >= lo && v <= hi && !slices.Contains(set, any(v)) {
				set = append(set, v)
			}
		}
		min, max = maxi(min, lo), mini(max, hi)
		if min > max {
			return Predicate{}, false, false // e.g. BIGINT keys beyond an INT field
		}
		if distinct <= maxInFilter {
			p.Op, p.Values = OpIn, set
		} else {
			p.Op, p.Values = OpGe, []any{min, max}
		}
		return p, true, true
	}
	val, less, ok := joinKeyDomain(a, t)
	if !ok {
		return Predicate{}, false, true
	}
	min, max := val(int(rows[0])), val(int(rows[0]))
	var set []any
	for _, i := range rows {
		v := val(int(i))
		if less(v, min) {
			min = v
		}
		if less(max, v) {
			max = v
		}
		if distinct <= maxInFilter && !slices.ContainsFunc(set, func(x any) bool { return !less(x, v) && !less(v, x) }) {
			set = append(set, v)
		}
	}
	if distinct <= maxInFilter {
		p.Op, p.Values = OpIn, set
	} else {
		p.Op, p.Values = OpGe, []any{min, max}
	}
	return p, true, true
}

func mini(a, b int64) int64 { return min(a, b) }
func maxi(a, b int64) int64 { return max(a, b) }

// joinIntKeys reads integer, date and timestamp keys of a in the pruning
// domain of a field of type t (literalValue's: int64, days and
// timestamps in microseconds).
func joinIntKeys(a arrow.Array, t schema.Type) (func(i int) int64, bool) {
	integer := t.Kind != schema.Date && t.Kind != schema.Timestamp && t.Kind != schema.Decimal && t.Kind != schema.String
	switch x := a.(type) {
	case *array.Int8:
		return func(i int) int64 { return int64(x.Value(i)) }, integer
	case *array.Int16:
		return func(i int) int64 { return int64(x.Value(i)) }, integer
	case *array.Int32:
		return func(i int) int64 { return int64(x.Value(i)) }, integer
	case *array.Int64:
		return x.Value, integer
	case *array.Uint8:
		return func(i int) int64 { return int64(x.Value(i)) }, integer
	case *array.Uint16:
		return func(i int) int64 { return int64(x.Value(i)) }, integer
	case *array.Uint32:
		return func(i int) int64 { return int64(x.Value(i)) }, integer
	case *array.Date32:
		return func(i int) int64 { return int64(x.Value(i)) * 86400 * 1e6 }, t.Kind == schema.Date
	case *array.Timestamp:
		unit := x.DataType().(*arrow.TimestampType).Unit
		// Nanoseconds would round to microseconds: no filter.
		return func(i int) int64 { return timestampValue(int64(x.Value(i)), unit).UnixMicro() },
			t.Kind == schema.Timestamp && unit != arrow.Nanosecond
	}
	return nil, false
}

// joinKeyDomain reads string and DECIMAL keys of a in the pruning domain of
// a field of type t, with that domain's order.
func joinKeyDomain(a arrow.Array, t schema.Type) (func(i int) any, func(x, y any) bool, bool) {
	switch x := a.(type) {
	case *array.String:
		return func(i int) any { return x.Value(i) },
			func(a, b any) bool { return a.(string) < b.(string) }, t.Kind == schema.String
	case *array.Decimal128:
		scale := x.DataType().(*arrow.Decimal128Type).Scale
		return func(i int) any { return decimal.NewFromBigInt(x.Value(i).BigInt(), -scale) },
			func(a, b any) bool { return a.(decimal.Decimal).LessThan(b.(decimal.Decimal)) }, t.Kind == schema.Decimal
	}
	return nil, nil, false
}
