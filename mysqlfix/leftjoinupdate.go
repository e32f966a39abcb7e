package mysqlfix

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// keylessLeftJoin is keylessUpdateJoin for UPDATE k LEFT JOIN s ON c SET
// … [WHERE w] with target k, one table s: every row of k is in the join,
// with s's columns NULL where nothing matches, so a row of k is updated
// when a matching row of s passes w (its values from that row), or when
// none matches and w holds with s NULL (the anti-join "WHERE s.id IS
// NULL" among them):
//
//	UPDATE k SET k.v = CASE WHEN <hit> THEN (SELECT e FROM s WHERE c AND w LIMIT 1) ELSE e[s:=NULL] END
//	WHERE <hit> OR ((SELECT 1 FROM s WHERE c LIMIT 1) IS NULL AND w[s:=NULL])
//
// with <hit> = (SELECT 1 FROM s WHERE c AND w LIMIT 1) IS NOT NULL. A
// column name both tables hold, unqualified, leaves the statement to GMS.
func (p *DMLFix) keylessLeftJoin(ctx *sql.Context, u *ast.Update) (string, bool) {
	if len(u.TableExprs) != 1 || len(u.OrderBy) > 0 || u.Limit != nil || len(u.Returning) > 0 || u.With != nil {
		return "", false
	}
	j, ok := u.TableExprs[0].(*ast.JoinTableExpr)
	if !ok || !strings.EqualFold(j.Join, ast.LeftJoinStr) || j.Condition.On == nil || len(j.Condition.Using) > 0 {
		return "", false
	}
	var leaves []joinLeaf
	var none []string
	if !p.flatten(ctx, ast.TableExprs{j.LeftExpr}, &leaves, &none) || !p.flatten(ctx, ast.TableExprs{j.RightExpr}, &leaves, &none) ||
		len(leaves) != 2 || len(none) != 0 {
		return "", false
	}
	k, s := leaves[0], leaves[1]
	for _, a := range u.Exprs {
		if targetOf(a.Name, leaves) != 0 {
			return "", false
		}
	}
	if !sql.IsKeyless(k.t.Schema()) {
		return "", false
	}
	on := "(" + render(j.Condition.On) + ")"
	cw, w, wNull := on, "", "TRUE"
	if u.Where != nil && u.Where.Expr != nil {
		w = "(" + render(u.Where.Expr) + ")"
		cw += " AND " + w
		var ok bool
		if wNull, ok = p.nullOut(u.Where.Expr, k, s); !ok {
			return "", false
		}
	}
	from := " FROM " + render(s.expr)
	hit := "(SELECT 1" + from + " WHERE " + cw + " LIMIT 1) IS NOT NULL"
	sets := make([]string, len(u.Exprs))
	for i, a := range u.Exprs {
		eNull, ok := p.nullOut(a.Expr, k, s)
		if !ok {
			return "", false
		}
		sets[i] = render(a.Name) + " = CASE WHEN " + hit + " THEN (SELECT " + render(a.Expr) + from + " WHERE " + cw + " LIMIT 1) ELSE " + eNull + " END"
	}
	var b strings.Builder
	b.WriteString("UPDATE ")
	if u.Ignore != "" {
		b.WriteString(u.Ignore + " ")
	}
	b.WriteString(render(k.expr) + " SET " + strings.Join(sets, ", "))
	b.WriteString(" WHERE " + hit + " OR ((SELECT 1" + from + " WHERE " + on + " LIMIT 1) IS NULL AND " + wNull + ")")
	return b.String(), true
}

// nullOut renders e with s's columns as NULL (the row of a LEFT JOIN that
// matched nothing); false when a column is ambiguous or e holds a
// subquery (whose names could mean either table).
func (p *DMLFix) nullOut(e ast.Expr, k, s joinLeaf) (string, bool) {
	sel, err := p.Parser.ParseSimple("SELECT " + render(e))
	if err != nil {
		return "", false
	}
	st, ok := sel.(*ast.Select)
	if !ok || len(st.SelectExprs) != 1 {
		return "", false
	}
	ae, ok := st.SelectExprs[0].(*ast.AliasedExpr)
	if !ok {
		return "", false
	}
	good := !containsExpr(ae, func(x ast.Expr) bool { _, sub := x.(*ast.Subquery); return sub })
	rewriteExprs(ae, false, func(x ast.Expr) (ast.Expr, bool) {
		c, ok := x.(*ast.ColName)
		if !ok {
			return nil, false
		}
		q := c.Qualifier.Name.String()
		inS := s.t.Schema().IndexOfColName(c.Name.String()) >= 0
		inK := k.t.Schema().IndexOfColName(c.Name.String()) >= 0
		switch {
		case q != "" && strings.EqualFold(q, s.name), q == "" && inS && !inK:
			return &ast.NullVal{}, true
		case q == "" && inS && inK:
			good = false
		}
		return nil, false
	})
	return "(" + render(ae.Expr) + ")", good
}
