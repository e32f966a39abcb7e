package mysqlfix

import (
	"context"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// DMLFix is a parser wrapper for the write statements GMS v0.20.0 refuses
// and MySQL runs, whose rewrite needs the tables' schemas (so it runs
// where the session is known, like CallGuard):
//
//   - INSERT … SELECT … ON DUPLICATE KEY UPDATE v = VALUES(v) without a
//     column list: the list is filled in from the table so that
//     insertSelectValues (ondupvalues.go) applies;
//
//   - UPDATE … JOIN of a table without a primary key: GMS's planner
//     refuses it ("keyless tables unsupported for UPDATE JOIN"), because
//     its UpdateJoin tells target rows apart by hashing them, which would
//     update one of two equal rows only. With inner joins and one target
//     table it becomes a single-table UPDATE, which updates every row
//     (equal rows alike) once, as MySQL does:
//
//     UPDATE k JOIN s ON k.id = s.id SET k.v = s.w WHERE s.x > 0
//     UPDATE k SET k.v = (SELECT s.w FROM s WHERE k.id = s.id AND s.x > 0 LIMIT 1)
//     WHERE (SELECT 1 FROM s WHERE k.id = s.id AND s.x > 0 LIMIT 1) IS NOT NULL
//
//     (A target row joined with several rows takes its values from one of
//     them, as in MySQL.) A LEFT JOIN of the target with one table is
//     rewritten likewise (leftjoinupdate.go); other outer joins and
//     several targets keep GMS's error.
//
// A statement parsed without a session (ParseSimple) is not rewritten.
type DMLFix struct {
	sql.Parser
	tables Tables
}

// Tables finds tables; *analyzer.Catalog is one.
type Tables interface {
	Table(ctx *sql.Context, dbName, tableName string) (sql.Table, sql.Database, error)
}

var _ sql.Parser = (*DMLFix)(nil)

// NewDMLFix wraps inner.
func NewDMLFix(inner sql.Parser, tables Tables) *DMLFix {
	return &DMLFix{Parser: inner, tables: tables}
}

// Parse implements sql.Parser.
func (p *DMLFix) Parse(ctx *sql.Context, query string, multi bool) (ast.Statement, string, string, error) {
	st, parsed, rest, err := p.Parser.Parse(ctx, query, multi)
	if err == nil {
		st, err = p.fix(ctx, st)
	}
	return st, parsed, rest, err
}

// ParseWithOptions implements sql.Parser.
func (p *DMLFix) ParseWithOptions(ctx context.Context, query string, delimiter rune, multi bool, options ast.ParserOptions) (ast.Statement, string, string, error) {
	st, parsed, rest, err := p.Parser.ParseWithOptions(ctx, query, delimiter, multi, options)
	if err == nil {
		st, err = p.fix(ctx, st)
	}
	return st, parsed, rest, err
}

// ParseOneWithOptions implements sql.Parser.
func (p *DMLFix) ParseOneWithOptions(ctx context.Context, query string, options ast.ParserOptions) (ast.Statement, int, error) {
	st, end, err := p.Parser.ParseOneWithOptions(ctx, query, options)
	if err == nil {
		st, err = p.fix(ctx, st)
	}
	return st, end, err
}

// fix rewrites st if it is one of the statements above.
func (p *DMLFix) fix(ctx context.Context, st ast.Statement) (ast.Statement, error) {
	sctx, ok := ctx.(*sql.Context)
	if !ok || sctx.Session == nil {
		return st, nil
	}
	var text string
	switch x := st.(type) {
	case *ast.Insert:
		if !selectWithValues(x) {
			return st, nil
		}
		if len(x.Columns) == 0 {
			x.Columns = p.columnsOf(sctx, x.Table)
		}
		if !insertSelectValues(x) {
			return st, nil
		}
		text = render(x)
	case *ast.Update:
		var ok bool
		if text, ok = p.keylessUpdateJoin(sctx, x); !ok {
			if text, ok = p.keylessLeftJoin(sctx, x); !ok {
				return st, nil
			}
		}
	default:
		return st, nil
	}
	out, err := p.Parser.ParseSimple(text)
	if err != nil {
		return nil, fmt.Errorf("mysqlfix: rewritten statement does not parse (%s): %w", text, err)
	}
	return out, nil
}

// columnsOf names the columns of table tn, or nil when it is not found.
func (p *DMLFix) columnsOf(ctx *sql.Context, tn ast.TableName) ast.Columns {
	t := p.table(ctx, tn)
	if t == nil {
		return nil
	}
	var cols ast.Columns
	for _, c := range t.Schema() {
		cols = append(cols, ast.NewColIdent(c.Name))
	}
	return cols
}

func (p *DMLFix) table(ctx *sql.Context, tn ast.TableName) sql.Table {
	db := tn.DbQualifier.String()
	if db == "" {
		db = ctx.GetCurrentDatabase()
	}
	t, _, err := p.tables.Table(ctx, db, tn.Name.String())
	if err != nil {
		return nil
	}
	return t
}

// joinLeaf is one table of an UPDATE's join.
type joinLeaf struct {
	expr *ast.AliasedTableExpr
	name string // how the statement refers to it: alias, else table name
	t    sql.Table
}

// keylessUpdateJoin returns the single-table form of u (see DMLFix), and
// whether it applies.
func (p *DMLFix) keylessUpdateJoin(ctx *sql.Context, u *ast.Update) (string, bool) {
	if len(u.OrderBy) > 0 || u.Limit != nil || len(u.Returning) > 0 || u.With != nil {
		return "", false
	}
	var leaves []joinLeaf
	var conds []string
	if !p.flatten(ctx, u.TableExprs, &leaves, &conds) || len(leaves) < 2 {
		return "", false
	}
	target := -1
	for _, a := range u.Exprs {
		i := targetOf(a.Name, leaves)
		if i < 0 || (target >= 0 && i != target) {
			return "", false
		}
		target = i
	}
	if target < 0 || !sql.IsKeyless(leaves[target].t.Schema()) {
		return "", false
	}
	var others []string
	for i, l := range leaves {
		if i != target {
			others = append(others, render(l.expr))
		}
	}
	if u.Where != nil && u.Where.Expr != nil {
		conds = append(conds, "("+render(u.Where.Expr)+")")
	}
	from := " FROM " + strings.Join(others, ", ")
	if len(conds) > 0 {
		from += " WHERE " + strings.Join(conds, " AND ")
	}
	sets := make([]string, len(u.Exprs))
	for i, a := range u.Exprs {
		sets[i] = render(a.Name) + " = (SELECT " + render(a.Expr) + from + " LIMIT 1)"
	}
	var b strings.Builder
	b.WriteString("UPDATE ")
	if u.Ignore != "" {
		b.WriteString(u.Ignore + " ")
	}
	b.WriteString(render(leaves[target].expr) + " SET " + strings.Join(sets, ", "))
	// Not EXISTS: GMS turns that into a semi-join, and a join under the
	// UPDATE brings its keyless refusal back.
	b.WriteString(" WHERE (SELECT 1" + from + " LIMIT 1) IS NOT NULL")
	return b.String(), true
}

// flatten lists the tables of an inner join tree and its ON conditions;
// false for anything else (outer or natural joins, USING, derived tables,
// a table that does not resolve).
func (p *DMLFix) flatten(ctx *sql.Context, tes ast.TableExprs, leaves *[]joinLeaf, conds *[]string) bool {
	for _, te := range tes {
		switch x := te.(type) {
		case *ast.AliasedTableExpr:
			tn, ok := x.Expr.(ast.TableName)
			if !ok || x.AsOf != nil {
				return false
			}
			t := p.table(ctx, tn)
			if t == nil {
				return false
			}
			name := x.As.String()
			if name == "" {
				name = tn.Name.String()
			}
			*leaves = append(*leaves, joinLeaf{expr: x, name: name, t: t})
		case *ast.ParenTableExpr:
			if !p.flatten(ctx, x.Exprs, leaves, conds) {
				return false
			}
		case *ast.JoinTableExpr:
			switch strings.ToLower(x.Join) {
			case ast.JoinStr, ast.StraightJoinStr, "inner join", "cross join":
			default:
				return false
			}
			if len(x.Condition.Using) > 0 {
				return false
			}
			if !p.flatten(ctx, ast.TableExprs{x.LeftExpr, x.RightExpr}, leaves, conds) {
				return false
			}
			if x.Condition.On != nil {
				*conds = append(*conds, "("+render(x.Condition.On)+")")
			}
		default:
			return false
		}
	}
	return true
}

// targetOf is the index of the leaf an assignment's column belongs to, or
// -1 when it is not exactly one.
func targetOf(c *ast.ColName, leaves []joinLeaf) int {
	found := -1
	for i, l := range leaves {
		q := c.Qualifier.Name.String()
		if q != "" {
			if strings.EqualFold(q, l.name) {
				return i
			}
			continue
		}
		if l.t.Schema().IndexOfColName(c.Name.String()) >= 0 {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}
