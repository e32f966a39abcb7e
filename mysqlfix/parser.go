package mysqlfix

import (
	"context"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Parser is GMS's MySQL parser with the SELECT shapes MySQL 8 answers and
// GMS v0.20.0 refuses or gets wrong rewritten into ones it answers:
// GROUP BY … WITH ROLLUP and GROUPING() (rollup.go), window functions over
// aggregates (windowagg.go), select aliases inside ORDER BY expressions
// (orderalias.go) and a HAVING subquery repeating the outer aggregate
// (havingsubquery.go). Each rewrite is SQL in, SQL out: the rewritten
// statement is rendered and parsed again, so what GMS plans is always a
// statement its own parser produced. A Parser has no state and is safe for
// concurrent use.
type Parser struct {
	inner sql.Parser
}

var _ sql.Parser = (*Parser)(nil)

// NewParser wraps inner, the MySQL parser (nil: sql.NewMysqlParser()).
func NewParser(inner sql.Parser) *Parser {
	if inner == nil {
		inner = sql.NewMysqlParser()
	}
	return &Parser{inner: inner}
}

// ParseSimple implements sql.Parser.
func (p *Parser) ParseSimple(query string) (ast.Statement, error) {
	marked := markRollup(query)
	st, err := p.inner.ParseSimple(marked)
	if err != nil {
		return st, tooDeep(err)
	}
	if fixed, ok := fixLiterals(marked, false); ok {
		fst, err := p.inner.ParseSimple(fixed)
		if err != nil {
			return fst, tooDeep(err)
		}
		st = reparseFixedLiterals(st, fst)
	}
	if err := checkNesting(st); err != nil {
		return nil, err
	}
	return p.rewrite(st)
}

// Parse implements sql.Parser.
func (p *Parser) Parse(ctx *sql.Context, query string, multi bool) (ast.Statement, string, string, error) {
	return p.ParseWithOptions(ctx, query, ';', multi, sql.LoadSqlMode(ctx).ParserOptions())
}

// ParseWithOptions implements sql.Parser. The remainder keeps its WITH
// ROLLUP marked, so the statements after the first are rewritten too.
func (p *Parser) ParseWithOptions(ctx context.Context, query string, delimiter rune, multi bool, options ast.ParserOptions) (ast.Statement, string, string, error) {
	st, parsed, rest, err := p.inner.ParseWithOptions(ctx, markRollup(query), delimiter, multi, options)
	if err != nil {
		return st, parsed, rest, tooDeep(err)
	}
	// The statement's extent comes from its text as written; its tree
	// from the text with MySQL's literals restored (literaltext.go).
	if fixed, ok := fixLiterals(parsed, options.AnsiQuotes); ok {
		fst, _, _, err := p.inner.ParseWithOptions(ctx, fixed, delimiter, false, options)
		if err != nil {
			return fst, parsed, rest, tooDeep(err)
		}
		st = reparseFixedLiterals(st, fst)
	}
	if err := checkNesting(st); err != nil {
		return nil, unmarkRollup(parsed), rest, err
	}
	st, err = p.rewrite(st)
	return st, unmarkRollup(parsed), rest, err
}

// ParseOneWithOptions implements sql.Parser.
func (p *Parser) ParseOneWithOptions(ctx context.Context, query string, options ast.ParserOptions) (ast.Statement, int, error) {
	marked := markRollup(query)
	st, end, err := p.inner.ParseOneWithOptions(ctx, marked, options)
	if err != nil {
		return st, end, tooDeep(err)
	}
	if len(marked) != len(query) {
		// The marker has the length of the text it replaces; never
		// hand out an offset into a string the caller does not have.
		return nil, 0, fmt.Errorf("mysqlfix: rollup marker changed the statement length")
	}
	text := marked
	if end > 0 && end < len(marked) {
		text = marked[:end]
	}
	if fixed, ok := fixLiterals(text, options.AnsiQuotes); ok {
		fst, _, _, err := p.inner.ParseWithOptions(ctx, fixed, ';', false, options)
		if err != nil {
			return fst, end, tooDeep(err)
		}
		st = reparseFixedLiterals(st, fst)
	}
	if err := checkNesting(st); err != nil {
		return nil, end, err
	}
	st, err = p.rewrite(st)
	return st, end, err
}

// rewrite applies the fixes to a top-level SELECT (or the SELECTs of a
// UNION) and re-parses what changed.
func (p *Parser) rewrite(st ast.Statement) (ast.Statement, error) {
	decimalCastLength(st)
	if e, ok := st.(*ast.Explain); ok {
		if d, ok := e.Statement.(*ast.Delete); ok {
			targetDeleteAll(d)
		}
	}
	if d, ok := st.(*ast.Delete); ok {
		targetDeleteAll(d)
		return d, nil
	}
	if ex, ok := st.(*ast.Explain); ok {
		if inj := explainStatement(ex); inj != nil {
			return inj, nil
		}
	}
	sel, ok := st.(ast.SelectStatement)
	if !ok {
		_, err := p.rollupNested(st, nil)
		switch {
		case err != nil:
			return nil, err
		case hasRollupMarker(st):
			return nil, errRollupPlacement
		}
		// In place: a CREATE VIEW keeps the offsets GMS takes the view's
		// text by (the view's WITH ROLLUP is rewritten again when the
		// view is read).
		return st, nil
	}
	nested, err := p.rollupNested(sel, topSelects(sel, map[*ast.Select]bool{}))
	if err != nil {
		return nil, err
	}
	text, changed, err := p.rewriteSelect(sel)
	if err != nil {
		// Never a statement with the error: GMS's multi-statement
		// handler drops Parse's error and runs the statement it got.
		return nil, err
	}
	if !changed && !nested {
		return st, nil
	}
	if !changed {
		text = render(sel)
	}
	return p.reparse(text)
}

// reparse parses a rewritten statement.
func (p *Parser) reparse(text string) (ast.Statement, error) {
	out, err := p.inner.ParseSimple(text)
	if err != nil {
		return nil, fmt.Errorf("mysqlfix: rewritten statement does not parse (%s): %w", text, err)
	}
	return out, nil
}

// rewriteSelect returns the SQL text of sel with the fixes applied, and
// whether anything changed.
func (p *Parser) rewriteSelect(sel ast.SelectStatement) (string, bool, error) {
	switch s := sel.(type) {
	case *ast.ParenSelect:
		text, changed, err := p.rewriteSelect(s.Select)
		return "(" + text + ")", changed, err
	case *ast.SetOp:
		lt, lc, err := p.rewriteSelect(s.Left)
		if err != nil {
			return "", false, err
		}
		rt, rc, err := p.rewriteSelect(s.Right)
		if err != nil || !(lc || rc) {
			return "", false, err
		}
		// Render the set operation around the rewritten sides.
		var b strings.Builder
		if s.With != nil {
			b.WriteString(render(s.With) + " ")
		}
		fmt.Fprintf(&b, "(%s) %s (%s)", lt, s.Type, rt)
		if len(s.OrderBy) > 0 {
			b.WriteString(render(s.OrderBy))
		}
		if s.Limit != nil {
			b.WriteString(render(s.Limit))
		}
		return b.String(), true, nil
	case *ast.Select:
		changed := false
		if fixHavingSubqueries(s) {
			changed = true
		}
		if rollupGroupBy(s) {
			text, err := p.rollup(s)
			return text, true, err
		}
		if containsExpr(s.SelectExprs, isGrouping) || containsExpr(s.Having, isGrouping) {
			return "", false, errGroupingWithoutRollup
		}
		if text, ok, err := p.windowOverAggregates(s); ok || err != nil {
			return text, true, err
		}
		if p.orderByAliases(s) {
			changed = true
		}
		// After orderByAliases: the expressions it copies in are already
		// resolved and must not have their names taken for aliases.
		if distinctOrdinals(s) {
			changed = true
		}
		return render(s), changed, nil
	}
	return render(sel), false, nil
}

// parseSelect parses one SELECT (a piece a rewrite built).
func (p *Parser) parseSelect(text string) (*ast.Select, error) {
	st, err := p.inner.ParseSimple(text)
	if err != nil {
		return nil, fmt.Errorf("mysqlfix: rewritten statement does not parse (%s): %w", text, err)
	}
	sel, ok := st.(*ast.Select)
	if !ok {
		return nil, fmt.Errorf("mysqlfix: rewritten statement is a %T, not a SELECT", st)
	}
	return sel, nil
}
