package rewrite

import (
	"fmt"
	"math/big"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/scan"
)

// answerFromManifest replaces COUNT(*), COUNT(col), MIN(col) and MAX(col)
// over a table (no grouping) with the answer computed from the manifest's
// statistics, without opening a data file — but only where the statistics
// are exact: every file's stats provided, bounds present and not
// truncated, no NaNs. A filter is allowed when the stats show each file
// wholly inside it or wholly outside (scan.WhollyMatching: a range on the
// sort key or a partition column that whole files satisfy); the answer is
// then over the files inside. Otherwise the plan is unchanged.
func answerFromManifest(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if scope != nil && !scope.IsEmpty() {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		gb, ok := n.(*plan.GroupBy)
		if !ok || len(gb.GroupByExprs) > 0 {
			return n, transform.SameTree, nil
		}
		child, filters := gb.Child, []sql.Expression(nil)
		if f, ok := child.(*plan.Filter); ok {
			child, filters = f.Child, expression.SplitConjunction(f.Expression)
		}
		t := baseTable(ctx, child)
		if t == nil {
			return n, transform.SameTree, nil
		}
		if filters == nil {
			filters = t.Filters()
		}
		files, err := t.Files(ctx)
		if err != nil {
			return n, transform.SameTree, nil // the scan will report it
		}
		if len(filters) > 0 {
			if files, ok = scan.WhollyMatching(t.CatalogSchema(), filters, files); !ok {
				return n, transform.SameTree, nil
			}
		}
		row := make(sql.Row, len(gb.SelectedExprs))
		for i, e := range gb.SelectedExprs {
			v, ok := aggregateFromStats(e, t, files)
			if !ok {
				return n, transform.SameTree, nil
			}
			row[i] = v
		}
		return &statsAnswer{schema: gb.Schema(), row: row, table: t.String()}, transform.NewTree, nil
	})
}

// baseTable returns the lakesql table directly under n (through an
// alias), unless the session's transaction has staged writes on it (only
// the row path merges those in) or its TIMESTAMPs read shifted into the
// session's time zone (only the row path converts them; provider's
// timezone.go).
func baseTable(ctx *sql.Context, n sql.Node) *provider.Table {
	switch x := n.(type) {
	case *plan.TableAlias:
		return baseTable(ctx, x.Child)
	case *plan.ResolvedTable:
		t, _ := x.Table.(*provider.Table)
		if t != nil && (t.HasStagedWrites(ctx) || t.ShiftsTimestamps(ctx)) {
			return nil
		}
		return t
	}
	return nil
}

func aggregateFromStats(e sql.Expression, t *provider.Table, files []manifest.DataFile) (any, bool) {
	if a, ok := e.(*expression.Alias); ok {
		e = a.Child
	}
	switch agg := e.(type) {
	case *aggregation.Count:
		if agg.Window() != nil {
			return nil, false
		}
		var n int64
		switch c := agg.Child.(type) {
		case *expression.Literal, *expression.Star:
			if l, ok := c.(*expression.Literal); ok && l.Value() == nil {
				return int64(0), true // COUNT(NULL)
			}
			for _, f := range files {
				n += f.RecordCount
			}
			return n, true
		case *expression.GetField:
			col, ok := t.CatalogSchema().Column(c.Name())
			if !ok {
				return nil, false
			}
			for i := range files {
				st, ok := columnStats(&files[i], col)
				if !ok {
					return nil, false
				}
				n += st.Values - st.Nulls
			}
			return n, true
		}
	case *aggregation.Min:
		return extreme(agg.Child, agg.Window(), t, files, -1)
	case *aggregation.Max:
		return extreme(agg.Child, agg.Window(), t, files, 1)
	}
	return nil, false
}

// columnStats returns a file's stats for col when they are provided and
// its counts known. A column the file lacks (it was added later) is all
// NULL in it.
func columnStats(f *manifest.DataFile, col schema.Column) (manifest.ColumnStats, bool) {
	st, ok := f.ColumnStats(col.ID)
	if !ok || f.StatsState != manifest.StatsProvided || st.Values < 0 || st.Nulls < 0 {
		return st, false
	}
	return st, true
}

func extreme(child sql.Expression, w *sql.WindowDefinition, t *provider.Table, files []manifest.DataFile, dir int) (any, bool) {
	gf, ok := child.(*expression.GetField)
	if !ok || w != nil {
		return nil, false
	}
	col, ok := t.CatalogSchema().Column(gf.Name())
	if !ok || col.Type.Kind == schema.JSON || col.Type.Kind == schema.Binary {
		return nil, false
	}
	var best any
	for i := range files {
		st, ok := columnStats(&files[i], col)
		if !ok || !st.Exact || st.NaNs != 0 {
			return nil, false
		}
		if st.Values == st.Nulls {
			continue // only NULLs here
		}
		b := st.Lower
		if dir > 0 {
			b = st.Upper
		}
		if b == nil {
			return nil, false // a bound left out (too long): not exact
		}
		v, err := datafile.DecodeBound(col.Type, b)
		if err != nil {
			return nil, false
		}
		if best == nil || compareBound(v, best)*dir > 0 {
			best = v
		}
	}
	if best == nil {
		return nil, true // all NULL (or empty): MIN/MAX is NULL
	}
	out, err := sqlValue(col, best, gf.Type())
	return out, err == nil
}

func compareBound(a, b any) int {
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		return cmp(x < y, x > y)
	case int32:
		y := b.(int32)
		return cmp(x < y, x > y)
	case uint64:
		y := b.(uint64)
		return cmp(x < y, x > y)
	case float64:
		y := b.(float64)
		return cmp(x < y, x > y)
	case string:
		y := b.(string)
		return cmp(x < y, x > y)
	case bool:
		y := b.(bool)
		return cmp(!x && y, x && !y)
	case *big.Int:
		return x.Cmp(b.(*big.Int))
	}
	return 0
}

func cmp(less, more bool) int {
	switch {
	case less:
		return -1
	case more:
		return 1
	}
	return 0
}

// sqlValue converts a decoded bound to the value GMS's MIN/MAX would
// return for the column.
func sqlValue(col schema.Column, v any, typ sql.Type) (any, error) {
	switch col.Type.Kind {
	case schema.Date:
		v = time.Unix(int64(v.(int32))*86400, 0).UTC()
	case schema.Timestamp:
		v = time.UnixMicro(v.(int64)).UTC()
	case schema.Decimal:
		v = decimal.NewFromBigInt(v.(*big.Int), -int32(col.Type.Scale))
	case schema.Time:
		return nil, fmt.Errorf("time bounds are answered by the scan")
	}
	out, _, err := typ.Convert(sql.NewEmptyContext(), v)
	return out, err
}

// statsAnswer is the one-row result computed from manifest statistics.
type statsAnswer struct {
	schema sql.Schema
	row    sql.Row
	table  string
}

var _ sql.ExecSourceRel = (*statsAnswer)(nil)

func (s *statsAnswer) Resolved() bool       { return true }
func (s *statsAnswer) String() string       { return "StatsAnswer(" + s.table + ")" }
func (s *statsAnswer) Schema() sql.Schema   { return s.schema }
func (s *statsAnswer) Children() []sql.Node { return nil }
func (s *statsAnswer) IsReadOnly() bool     { return true }
func (s *statsAnswer) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(s, len(children), 0)
	}
	return s, nil
}
func (s *statsAnswer) RowIter(*sql.Context, sql.Row) (sql.RowIter, error) {
	return sql.RowsToRowIter(s.row.Copy()), nil
}
