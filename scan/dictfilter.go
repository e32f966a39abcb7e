package scan

import (
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Dictionary filtering (as parquet-mr, Trino and DuckDB do): a column
// chunk wholly dictionary-encoded lists its distinct values in its
// dictionary page, so a row group whose dictionary holds none of the
// values of col = v or col IN (...) has no matching row, even when its
// min/max admit them (a value between two others, in a column sorted on
// something else). It decides only equality; it drops a row group only
// when certain (see dictMightMatch).

// dictPredicates returns the indexes of the predicates a dictionary can
// decide: = and IN on a column read (cols[k] >= 0) that is not a float
// (RowGroupDictionary never reads one). String predicates exist only for
// binary collations (literalValue), where = is byte equality, which is
// what the dictionary's values are compared by.
func dictPredicates(preds []Predicate, cols []int) []int {
	var out []int
	for k, p := range preds {
		if (p.Op == OpEq || p.Op == OpIn) && len(p.Values) > 0 && cols[k] >= 0 && !isFloat(p.Type) {
			out = append(out, k)
		}
	}
	return out
}

// dictRulesOut reports whether row group rg's dictionary of the column of
// some predicate preds[k] (k in eq) holds none of its values. A chunk
// without a usable dictionary rules out nothing, and so does a damaged
// one: the dictionary only spares work, and reading the row group reports
// the damage (its data pages need that dictionary too).
func dictRulesOut(r *datafile.Reader, rg int, preds []Predicate, cols []int, eq []int) bool {
	dicts := map[int][]any{} // by column: predicates on one column share its dictionary
	for _, k := range eq {
		vals, read := dicts[cols[k]]
		if !read {
			var ok bool
			var err error
			vals, ok, err = r.RowGroupDictionary(rg, cols[k])
			if err != nil || !ok {
				vals = nil
			}
			dicts[cols[k]] = vals
		}
		if vals != nil && !dictMightMatch(preds[k], vals) {
			return true
		}
	}
	return false
}

// dictMightMatch reports whether a dictionary (its values in the Go
// representation of p's column type, as datafile gives them) may hold a
// value p's = or IN accepts. Values are compared in the comparison domain
// (domainValue), so an int32-stored column matches int64 literals. It
// answers true, keeping the row group, whenever equality there may not be
// what GMS decides: a dictionary value outside the domain, a date compared
// with a time of day other than midnight, a decimal with more fractional
// digits than the column's scale.
func dictMightMatch(p Predicate, vals []any) bool {
	want := make(map[any]struct{}, len(p.Values))
	for _, v := range p.Values {
		key, ok := valueKey(v)
		if !ok || !exactInColumn(p.Type, v) {
			return true
		}
		want[key] = struct{}{}
	}
	for _, d := range vals {
		key, ok := valueKey(domainValue(p.Type, d))
		if !ok {
			return true
		}
		if _, hit := want[key]; hit {
			return true
		}
	}
	return false
}

// valueKey is a comparable key of a comparison-domain value: equal keys
// for equal values of one column (decimals by their canonical string, in
// which 1.50 and 1.5 agree). false: not a value a dictionary decides.
func valueKey(v any) (any, bool) {
	switch x := v.(type) {
	case int64, string:
		return x, true
	case decimal.Decimal:
		return x.String(), true
	}
	return nil, false
}

// exactInColumn reports whether a predicate value is one the column can
// hold exactly, so that equality with the dictionary's values is plain
// value equality.
func exactInColumn(t schema.Type, v any) bool {
	switch t.Kind {
	case schema.Date:
		x, ok := v.(int64)
		return ok && x%dayMicros == 0
	case schema.Decimal:
		x, ok := v.(decimal.Decimal)
		return ok && x.Equal(x.Truncate(int32(t.Scale)))
	}
	return true
}
