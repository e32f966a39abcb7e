package scan

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// pagePruning says how a reader's row groups were cut by the page index.
type pagePruning struct {
	rows, skipped int64 // rows of the kept row groups, and those ruled out
	unreadable    int   // row groups whose page index could not be read
}

// selectPages restricts each kept row group of r to the row ranges whose
// pages may hold a row matching every predicate (see pageRanges); cols[k]
// is the index among r's columns of preds[k]'s column (-1: not read). Row
// groups without a page index for the predicates' columns are read whole.
func selectPages(r *datafile.Reader, stats []datafile.RowGroupStats, keep []int, preds []Predicate, cols []int) (pagePruning, error) {
	var pp pagePruning
	idx, slot := pageColumns(preds, cols)
	for _, rg := range keep {
		n := stats[rg].NumRows
		pp.rows += n
		if len(idx) == 0 || wholeRowGroup(stats[rg], preds, cols, slot) {
			continue
		}
		pages, err := r.RowGroupPages(rg, idx)
		if err != nil {
			// The page index only spares work: a damaged one prunes
			// nothing, and the data pages are read as without it; the
			// Stats report it.
			pp.unreadable++
			continue
		}
		ranges, pruned := pageRanges(n, pages, preds, slot)
		if !pruned {
			continue
		}
		if err := r.SelectRows(rg, ranges); err != nil {
			return pp, err
		}
		pp.skipped += n - rowsIn(ranges)
	}
	return pp, nil
}

// wholeRowGroup reports whether the row group's footer stats show every
// row matching every page-pruning predicate: then no page can be ruled
// out, and its page index is not worth reading.
func wholeRowGroup(rg datafile.RowGroupStats, preds []Predicate, cols, slot []int) bool {
	for k, p := range preds {
		if slot[k] >= 0 && !chunkStats(p.Type, rg.Columns[cols[k]], rg.NumRows).allMatch(p) {
			return false
		}
	}
	return true
}

// pageColumns returns the distinct reader columns the predicates prune
// pages by, and each predicate's slot among them (-1: none). Float
// predicates never prune, as for row groups: page stats leave NaN out.
func pageColumns(preds []Predicate, cols []int) (idx, slot []int) {
	slot = make([]int, len(preds))
	for k, p := range preds {
		slot[k] = -1
		if cols[k] < 0 || p.Type.Kind == schema.Float32 || p.Type.Kind == schema.Float64 {
			continue
		}
		at := -1
		for i, c := range idx {
			if c == cols[k] {
				at = i
			}
		}
		if at < 0 {
			at = len(idx)
			idx = append(idx, cols[k])
		}
		slot[k] = at
	}
	return idx, slot
}

// pageRanges returns the row ranges of a row group of n rows that may hold
// a row matching every predicate: for each predicate the union of the
// pages of its column (pages[slot[k]]) whose stats may satisfy it, then the
// intersection over predicates (page boundaries differ by column; ranges
// are in rows). A superset of the matching rows, in order. pruned is false
// when no row is ruled out.
func pageRanges(n int64, pages []datafile.ColumnPages, preds []Predicate, slot []int) (ranges []datafile.RowRange, pruned bool) {
	ranges = []datafile.RowRange{{Start: 0, End: n}}
	for k, p := range preds {
		if slot[k] < 0 || pages[slot[k]].FirstRows == nil {
			continue
		}
		ranges = intersect(ranges, matchingPages(n, pages[slot[k]], p))
		if len(ranges) == 0 {
			break
		}
	}
	return ranges, rowsIn(ranges) < n
}

// matchingPages is the union of the row ranges of cp's pages whose stats
// may satisfy p, adjacent pages merged.
func matchingPages(n int64, cp datafile.ColumnPages, p Predicate) []datafile.RowRange {
	var out []datafile.RowRange
	for i := range cp.FirstRows {
		rows := cp.Rows(i, n)
		if !chunkStats(p.Type, cp.Stats[i], rows.Len()).mightMatch(p) {
			continue
		}
		if k := len(out) - 1; k >= 0 && out[k].End == rows.Start {
			out[k].End = rows.End
			continue
		}
		out = append(out, rows)
	}
	return out
}

// intersect intersects two sorted lists of disjoint ranges.
func intersect(a, b []datafile.RowRange) []datafile.RowRange {
	var out []datafile.RowRange
	for len(a) > 0 && len(b) > 0 {
		lo, hi := max(a[0].Start, b[0].Start), min(a[0].End, b[0].End)
		if lo < hi {
			out = append(out, datafile.RowRange{Start: lo, End: hi})
		}
		if a[0].End < b[0].End {
			a = a[1:]
		} else {
			b = b[1:]
		}
	}
	return out
}

func rowsIn(ranges []datafile.RowRange) int64 {
	var n int64
	for _, x := range ranges {
		n += x.Len()
	}
	return n
}

// exactFilter compiles the conjuncts of filters that scan can decide
// exactly on the columns fieldIDs (those the vectorised aggregates use);
// the others are left to the filter above the scan.
func exactFilter(s *schema.Schema, filters []sql.Expression, fieldIDs []int) []vecPred {
	var out []vecPred
	for _, f := range filters {
	conjuncts:
		for _, c := range splitAnd(f) {
			preds, ok := exactPredicates(s, c)
			if !ok {
				continue
			}
			vps := make([]vecPred, 0, len(preds))
			for _, pr := range preds {
				col := slices.Index(fieldIDs, pr.FieldID)
				if col < 0 || !filterable(pr.Type) {
					continue conjuncts
				}
				vp, ok := compileVecPred(pr, col, pr.Type)
				if !ok {
					continue conjuncts
				}
				vps = append(vps, vp)
			}
			out = append(out, vps...)
		}
	}
	return out
}

// appendSelected converts the rows of rec passing vps (all of them when
// vps is empty), a run of consecutive rows at a time.
func appendSelected(rows []sql.Row, rec arrow.Record, cols []schema.Type, vps []vecPred, sel []int32) ([]sql.Row, []int32, error) {
	if len(vps) == 0 {
		rows, err := appendRecord(rows, rec, cols)
		return rows, sel, err
	}
	sel = selectRows(rec, vps, sel)
	for i := 0; i < len(sel); {
		j := i + 1
		for j < len(sel) && sel[j] == sel[j-1]+1 {
			j++
		}
		run := rec.NewSlice(int64(sel[i]), int64(sel[j-1])+1)
		var err error
		rows, err = appendRecord(rows, run, cols)
		run.Release()
		if err != nil {
			return nil, sel, err
		}
		i = j
	}
	return rows, sel, nil
}
