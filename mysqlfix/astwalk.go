package mysqlfix

import (
	"reflect"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// The parser-level fixes (rollup.go, windowagg.go, orderalias.go,
// havingsubquery.go) rewrite vitess ASTs. vitess's own ReplaceExpr skips
// parts of the tree (window specifications, among others), so they use
// rewriteExprs, which reaches every expression by reflection.

var exprType = reflect.TypeOf((*ast.Expr)(nil)).Elem()

// rewriteExprs calls f on every expression under node, outermost first;
// where f returns a replacement, it takes the expression's place and is
// not descended into. Subqueries are not entered (their expressions are
// in another scope) unless intoSubqueries is set.
func rewriteExprs(node any, intoSubqueries bool, f func(ast.Expr) (ast.Expr, bool)) {
	rewriteValue(reflect.ValueOf(node), intoSubqueries, f)
}

func rewriteValue(v reflect.Value, intoSub bool, f func(ast.Expr) (ast.Expr, bool)) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		if e, ok := v.Interface().(ast.Expr); ok && v.CanSet() && v.Type() == exprType {
			if ne, ok := f(e); ok {
				v.Set(reflect.ValueOf(&ne).Elem())
				return
			}
		}
		rewriteValue(v.Elem(), intoSub, f)
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if _, ok := v.Interface().(*ast.Subquery); ok && !intoSub {
			return
		}
		rewriteValue(v.Elem(), intoSub, f)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				rewriteValue(v.Field(i), intoSub, f)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			rewriteValue(v.Index(i), intoSub, f)
		}
	}
}

// visitExprs calls f on every expression under node (not in subqueries),
// outermost first; f returns false to skip an expression's inside.
func visitExprs(node any, f func(ast.Expr) bool) {
	rewriteExprs(node, false, func(e ast.Expr) (ast.Expr, bool) {
		if f(e) {
			return nil, false
		}
		return e, true // "replace" with itself: stops the descent
	})
}

// isAggregate reports whether e is a call of an aggregate function (not a
// window function over one).
func isAggregate(e ast.Expr) bool {
	fe, ok := e.(*ast.FuncExpr)
	return ok && fe.Over == nil && fe.IsAggregate()
}

// isWindow reports whether e is a window function call.
func isWindow(e ast.Expr) bool {
	fe, ok := e.(*ast.FuncExpr)
	return ok && fe.Over != nil
}

// containsExpr reports whether pred holds for an expression under node.
func containsExpr(node any, pred func(ast.Expr) bool) bool {
	found := false
	visitExprs(node, func(e ast.Expr) bool {
		if found || pred(e) {
			found = true
			return false
		}
		return true
	})
	return found
}

// sameExpr compares expressions as MySQL matches a select-list expression
// to a GROUP BY one: by their text, where a column matches the same column
// qualified or not.
func sameExpr(a, b ast.Expr) bool {
	ca, aok := a.(*ast.ColName)
	cb, bok := b.(*ast.ColName)
	if aok && bok {
		if !ca.Name.Equal(cb.Name) {
			return false
		}
		qa, qb := ast.String(ca.Qualifier), ast.String(cb.Qualifier)
		return qa == "" || qb == "" || strings.EqualFold(qa, qb)
	}
	return strings.EqualFold(ast.String(a), ast.String(b))
}

// outputName is the column name MySQL gives a select-list expression: its
// alias, else its text as written.
func outputName(ae *ast.AliasedExpr) string {
	if !ae.As.IsEmpty() {
		return ae.As.String()
	}
	if ae.InputExpression != "" {
		return ae.InputExpression
	}
	return ast.String(ae.Expr)
}

// quoteName backquotes an identifier.
func quoteName(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// render writes an expression as SQL text.
func render(e ast.SQLNode) string { return ast.String(e) }

// rewriteExpr is rewriteExprs on one expression, returning the result (the
// root itself may be replaced).
func rewriteExpr(e ast.Expr, f func(ast.Expr) (ast.Expr, bool)) ast.Expr {
	h := struct{ E ast.Expr }{e}
	rewriteExprs(&h, false, f)
	return h.E
}
