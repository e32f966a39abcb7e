package rewrite

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"

	"github.com/lakesql/lakesql/provider"
)

// estimate is the planner's picture of a relation: how many rows it
// returns and, for the columns of the lakesql tables it reads, their
// distinct counts and value ranges. Join order and build sides are
// chosen from these (coster.go). Column statistics come from the
// manifests (provider.TableStats); what a filter or a join does to them
// is tracked in ndv.
type estimate struct {
	rows float64
	// tables are the table ids the relation reads, with their
	// statistics (nil for a source that is not a lakesql table).
	tables map[sql.TableId]*provider.TableStats
	// ndv caps a column's distinct count below what its table's
	// statistics say: a filter's equality pins it to one value, a join's
	// equality to the smaller side's count.
	ndv map[colKey]float64
}

// colKey names a column of a table read by a relation.
type colKey struct {
	table sql.TableId
	name  string
}

func keyOf(gf *expression.GetField) colKey {
	return colKey{table: gf.TableId(), name: strings.ToLower(gf.Name())}
}

// column is what the estimate knows of one column: its statistics (if
// its table is a lakesql table) and its distinct count (0 when unknown).
//
// The distinct count is the table's, not cut by the filters below the
// relation: a filter keeps each key with some probability, and a join
// divides by the larger of its keys' table-wide counts (System R's
// independence), so a filtered side joined to another filtered side is
// cut by both filters. Capping the count by the relation's rows instead
// would assume the smaller side's keys all match (containment) and lose
// the other side's filter. Only equalities lower it (pin).
type column struct {
	stat     provider.ColumnStat
	hasStat  bool
	distinct float64
}

func (e *estimate) column(gf *expression.GetField) column {
	var c column
	k := keyOf(gf)
	if ts := e.tables[k.table]; ts != nil {
		c.stat, c.hasStat = ts.Column(k.name)
		c.distinct = float64(c.stat.Distinct)
	}
	if v, ok := e.ndv[k]; ok && (c.distinct == 0 || v < c.distinct) {
		c.distinct = v
	}
	return c
}

// reads reports whether the relation reads the column's table.
func (e *estimate) reads(gf *expression.GetField) bool {
	_, ok := e.tables[gf.TableId()]
	return ok
}

// derive is a copy of e with rows rows and the same column knowledge.
func (e *estimate) derive(rows float64) *estimate {
	out := &estimate{rows: rows, tables: e.tables, ndv: make(map[colKey]float64, len(e.ndv))}
	for k, v := range e.ndv {
		out.ndv[k] = v
	}
	return out
}

// merge is the estimate of a relation reading both l's and r's columns.
func merge(l, r *estimate, rows float64) *estimate {
	out := l.derive(rows)
	out.tables = make(map[sql.TableId]*provider.TableStats, len(l.tables)+len(r.tables))
	for id, ts := range l.tables {
		out.tables[id] = ts
	}
	for id, ts := range r.tables {
		out.tables[id] = ts
	}
	for k, v := range r.ndv {
		out.ndv[k] = v
	}
	return out
}

// pin caps a column's distinct count.
func (e *estimate) pin(gf *expression.GetField, ndv float64) {
	k := keyOf(gf)
	if old, ok := e.ndv[k]; !ok || ndv < old {
		e.ndv[k] = ndv
	}
}
