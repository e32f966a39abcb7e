package provider

import "github.com/dolthub/go-mysql-server/sql"

// Projection (sql.ProjectedTable): GMS hands a table the names of the
// columns a query reads; the lakesql table and the metadata tables narrow
// their schema and rows to them the same way.

// projectedSchema is full narrowed to the columns named in proj, in
// proj's order; full itself when proj is nil (no projection).
func projectedSchema(full sql.Schema, proj []string) sql.Schema {
	if proj == nil {
		return full
	}
	out := make(sql.Schema, 0, len(proj))
	for _, i := range projectedIndexes(full, proj) {
		out = append(out, full[i])
	}
	return out
}

// projectedIndexes are the positions in full of the columns named in
// proj (names full lacks are skipped); every position when proj is nil.
func projectedIndexes(full sql.Schema, proj []string) []int {
	if proj == nil {
		idx := make([]int, len(full))
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := make([]int, 0, len(proj))
	for _, name := range proj {
		if i := full.IndexOfColName(name); i >= 0 {
			idx = append(idx, i)
		}
	}
	return idx
}
