package scan

import (
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// keepRowGroups returns the row groups whose footer stats may hold a row
// matching every predicate; cols[k] is the index in each row group's
// Columns of preds[k]'s column (-1: not among them, no pruning). Float
// predicates never prune: footer stats leave NaN out, and GMS compares
// NaN as matching.
func keepRowGroups(stats []datafile.RowGroupStats, preds []Predicate, cols []int) []int {
	keep := make([]int, 0, len(stats))
	for _, rg := range stats {
		ok := true
		for k, pr := range preds {
			if cols[k] < 0 || pr.Type.Kind == schema.Float32 || pr.Type.Kind == schema.Float64 {
				continue
			}
			if !chunkStats(pr.Type, rg.Columns[cols[k]], rg.NumRows).mightMatch(pr) {
				ok = false
				break
			}
		}
		if ok {
			keep = append(keep, rg.RowGroup)
		}
	}
	return keep
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
