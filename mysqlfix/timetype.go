package mysqlfix

import (
	"regexp"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// GMS v0.20.0 has one TIME type, which keeps microseconds and names
// itself "time(6)" whatever the column was declared as. MySQL shows a
// column declared TIME as "time" in SHOW COLUMNS (DESCRIBE) and SHOW
// CREATE TABLE, and tools that diff or migrate schemas read that text.
// TimeTypeNames shows "time" there. lakesql keeps a TIME value's
// fraction as GMS does (no column records a declared precision), so a
// TIME(6) column shows as "time" too.

// TimeTypeNames is an exec builder that names TIME columns "time" in
// SHOW COLUMNS and SHOW CREATE TABLE.
type TimeTypeNames struct{ Inner sql.NodeExecBuilder }

var timeColumnDef = regexp.MustCompile("(?m)^(\\s*`(?:[^`]|``)+` )time\\(6\\)")

func (b TimeTypeNames) Build(ctx *sql.Context, n sql.Node, r sql.Row) (sql.RowIter, error) {
	var fix func(sql.Row) sql.Row
	switch x := n.(type) {
	case *plan.ShowColumns:
		fix = func(row sql.Row) sql.Row {
			if len(row) > 1 {
				if name, ok := row[0].(string); ok {
					for _, c := range x.TargetSchema() {
						if c.Name == name && types.IsTimespan(c.Type) {
							row[1] = "time"
						}
					}
				}
			}
			return row
		}
	case *plan.ShowCreateTable:
		fix = func(row sql.Row) sql.Row {
			if len(row) > 1 {
				if stmt, ok := row[1].(string); ok {
					row[1] = timeColumnDef.ReplaceAllString(stmt, "${1}time")
				}
			}
			return row
		}
	default:
		return b.Inner.Build(ctx, n, r)
	}
	iter, err := b.Inner.Build(ctx, n, r)
	if err != nil {
		return nil, err
	}
	return &mappedIter{RowIter: iter, fix: fix}, nil
}

// mappedIter applies fix to each row of RowIter.
type mappedIter struct {
	sql.RowIter
	fix func(sql.Row) sql.Row
}

func (m *mappedIter) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := m.RowIter.Next(ctx)
	if err != nil {
		return nil, err
	}
	return m.fix(row), nil
}
