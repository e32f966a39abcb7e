package scan

import (
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// WhollyMatching returns the files of which every row passes filters,
// judged from the manifest's statistics alone, and true when every other
// file has no row passing them: then an aggregate over the filtered rows
// is one over those files' rows, which statistics can answer (COUNT(*),
// MIN, MAX). It reports false when some file may hold rows of both kinds,
// when a file's stats are pending, or when a filter is not one the
// vectorised kernels decide exactly (the same rule CompileAggregate
// applies); float predicates never decide (NaN).
func WhollyMatching(s *schema.Schema, filters []sql.Expression, files []manifest.DataFile) ([]manifest.DataFile, bool) {
	p, ok := CompileAggregate(s, filters, nil, nil)
	if !ok {
		return nil, false
	}
	var keep []manifest.DataFile
	for i := range files {
		switch fileMatch(&files[i], p.preds) {
		case matchNone:
		case matchAll:
			keep = append(keep, files[i])
		default:
			return nil, false
		}
	}
	return keep, true
}

type fileVerdict int

const (
	matchSome fileVerdict = iota // unknown, or some rows pass
	matchNone
	matchAll
)

// fileMatch decides a file against a conjunction from its stats.
func fileMatch(f *manifest.DataFile, preds []Predicate) fileVerdict {
	all := true
	for _, p := range preds {
		st, ok := statsFor(f, p.FieldID, p.Type)
		if !ok || isFloat(p.Type) {
			all = false
			continue
		}
		if !st.mightMatch(p) {
			return matchNone
		}
		all = all && st.allMatch(p)
	}
	if all {
		return matchAll
	}
	return matchSome
}
