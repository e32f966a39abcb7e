package scan

import (
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// keepRowGroups returns the row groups of r that may hold a row matching
// every predicate: those whose footer stats may (stats are r's
// RowGroupStats), less those a dictionary rules out (dictRulesOut), which
// dictPruned counts. cols[k] is the index among r's columns of preds[k]'s
// column (-1: not read, no pruning). Float predicates never prune: footer
// stats leave NaN out, and GMS compares NaN as matching. Dictionaries are
// read only for row groups the stats keep, and only for = and IN.
func keepRowGroups(r *datafile.Reader, stats []datafile.RowGroupStats, preds []Predicate, cols []int) (keep []int, dictPruned int) {
	keep = make([]int, 0, len(stats))
	eq := dictPredicates(preds, cols)
	for _, rg := range stats {
		if !statsMightMatch(rg, preds, cols) {
			continue
		}
		if len(eq) > 0 && dictRulesOut(r, rg.RowGroup, preds, cols, eq) {
			dictPruned++
			continue
		}
		keep = append(keep, rg.RowGroup)
	}
	return keep, dictPruned
}

// statsMightMatch reports whether a row group's footer stats may hold a
// row matching every predicate.
func statsMightMatch(rg datafile.RowGroupStats, preds []Predicate, cols []int) bool {
	for k, pr := range preds {
		if cols[k] < 0 || isFloat(pr.Type) {
			continue
		}
		if !chunkStats(pr.Type, rg.Columns[cols[k]], rg.NumRows).mightMatch(pr) {
			return false
		}
	}
	return true
}

func isFloat(t schema.Type) bool {
	return t.Kind == schema.Float32 || t.Kind == schema.Float64
}

// chunkStats are the stats of a row group's or a page's rows of one
// column in the comparison domain.
func chunkStats(t schema.Type, cs datafile.ColumnStats, rows int64) colStats {
	st := colStats{nulls: cs.NullCount, values: rows}
	if cs.Missing {
		st.nulls = rows
	}
	if cs.Min != nil {
		st.lower = domainValue(t, cs.Min)
	}
	if cs.Max != nil {
		st.upper = domainValue(t, cs.Max)
	}
	if st.nulls < 0 {
		st.values = -1
	}
	return st
}

// predicateColumns maps each predicate to the index of its column in the
// projected field ids (-1 when not projected).
func predicateColumns(preds []Predicate, fieldIDs []int) []int {
	cols := make([]int, len(preds))
	for k, p := range preds {
		cols[k] = -1
		for i, id := range fieldIDs {
			if id == p.FieldID {
				cols[k] = i
			}
		}
	}
	return cols
}
