package rewrite

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/mysqlfix"
	"github.com/lakesql/lakesql/scan"
)

// aggInput is what a vectorised join aggregation computes: grouping and
// selected expressions over the join tree below path.
type aggInput struct {
	groupBy, selected []sql.Expression
	child             sql.Node
	path              []int // from the GroupBy to child
}

// joinAggInput reads gb as an aggregation over a join. TPC-H Q07, Q08
// and Q09 aggregate a derived table, GroupBy(SubqueryAlias(Project(join
// tree))): the alias's columns are replaced by the Project's expressions,
// so the aggregation reads the join's columns directly.
func joinAggInput(gb *plan.GroupBy) (aggInput, bool) {
	in := aggInput{groupBy: gb.GroupByExprs, selected: gb.SelectedExprs, child: gb.Child, path: []int{0}}
	sa, ok := gb.Child.(*plan.SubqueryAlias)
	if !ok {
		return in, true
	}
	p, ok := sa.Child.(*plan.Project)
	if !ok || !joinBelow(p.Child) || len(sa.ColumnNames) > 0 || !sa.Correlated.Empty() || sa.Volatile || sa.IsLateral {
		return in, false
	}
	proj := make(map[string]sql.Expression, len(p.Projections))
	for _, e := range p.Projections {
		name := e.String()
		if nm, ok := e.(sql.Nameable); ok {
			name = nm.Name()
		}
		if al, ok := e.(*expression.Alias); ok {
			e = al.Child
		}
		if hasSubquery(e) || !deterministic(e) {
			return in, false
		}
		if _, dup := proj[strings.ToLower(name)]; dup {
			return in, false
		}
		proj[strings.ToLower(name)] = e
	}
	inline := func(es []sql.Expression) ([]sql.Expression, bool) {
		out := make([]sql.Expression, len(es))
		ok := true
		for i, e := range es {
			out[i], _, _ = transform.Expr(e, func(x sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				gf, isField := x.(*expression.GetField)
				if !isField {
					return x, transform.SameTree, nil
				}
				def, found := proj[strings.ToLower(gf.Name())]
				if !found || !strings.EqualFold(gf.Table(), sa.Name()) {
					ok = false
					return x, transform.SameTree, nil
				}
				return def, transform.NewTree, nil
			})
		}
		return out, ok
	}
	var ok1, ok2 bool
	in.groupBy, ok1 = inline(gb.GroupByExprs)
	in.selected, ok2 = inline(gb.SelectedExprs)
	in.child, in.path = p.Child, []int{0, 0, 0}
	return in, ok1 && ok2
}

// deterministic reports whether e computes the same value from the same
// row every time: a derived column is computed once per build row, and
// an inlined one wherever the alias's column is read.
func deterministic(e sql.Expression) bool {
	return !transform.InspectExpr(e, func(x sql.Expression) bool {
		nd, ok := x.(sql.NonDeterministicExpression)
		return ok && nd.IsNonDeterministic()
	})
}

// derivedCol is a column of a build side's record computed from its
// other columns: GMS evaluates expr (its GetFields index the side's base
// build columns) once per build row, so an expression of one build
// side's columns (EXTRACT(YEAR FROM o_orderdate), a CASE over
// o_orderpriority, p_type LIKE 'PROMO%') costs one evaluation per build
// row and reaches the pipeline as a plain column.
type derivedCol struct {
	key  string
	expr sql.Expression
	// flag: the column holds 1 where expr is TRUE and 0 elsewhere (a
	// CASE condition, which only TRUE meets).
	flag bool
	typ  schema.Type
}

// registerColumns resolves every build column es read before any
// derived column is added: a side's derived columns follow its base
// columns in its record.
func (js *joinScope) registerColumns(es []sql.Expression) {
	for _, e := range es {
		transform.InspectExpr(e, func(x sql.Expression) bool {
			if gf, ok := x.(*expression.GetField); ok {
				if l := js.tree.leafOf(gf); l >= 0 && l != js.probe {
					js.col(gf)
				}
			}
			return false
		})
	}
}

// keyCol resolves a group key: a column of any side, or an expression of
// one build side's columns.
func (js *joinScope) keyCol(e sql.Expression) (scan.JoinCol, bool) {
	if _, isField := e.(*expression.GetField); isField {
		return js.col(e)
	}
	if c, ok := js.derived(e, false); ok {
		return c, true
	}
	// An expression over the probe (EXTRACT(YEAR FROM l_shipdate)) or
	// several sides, computed per tuple; one JoinCol per text, so the
	// selected expression finds its key.
	key := e.String()
	if c, ok := js.exprKeys[key]; ok {
		return c, true
	}
	te, ok := js.tupleExpr(e)
	if !ok {
		return scan.JoinCol{}, false
	}
	x, ok := scan.CompileExpr(js.tupleSchema(), te)
	if !ok {
		return scan.JoinCol{}, false
	}
	c := scan.JoinCol{Expr: x}
	js.exprKeys[key] = c
	return c, true
}

// derived adds e, an expression of one build side's columns, as a
// derived column of that side (or finds it added).
func (js *joinScope) derived(e sql.Expression, flag bool) (scan.JoinCol, bool) {
	set, ok := js.tree.leavesOf(e)
	if !ok || len(set) != 1 || set[js.probe] || hasSubquery(e) || !deterministic(e) {
		return scan.JoinCol{}, false
	}
	var leaf int
	for l := range set {
		leaf = l
	}
	s := js.sideOf[leaf]
	bc := &js.sides[s]
	key := e.String()
	if flag {
		key = "flag:" + key
	}
	for k, d := range bc.derived {
		if d.key == key {
			return scan.JoinCol{Build: true, Side: s, ID: len(bc.idx) + k}, true
		}
	}
	typ := schema.Type{Kind: schema.Int8}
	if !flag {
		if typ, ok = buildType(e.Type()); !ok {
			return scan.JoinCol{}, false
		}
		if typ.Kind == schema.Decimal && typ.Precision > 38 {
			typ.Precision = 38 // wider values fail the build: the row path
		}
	}
	expr, _, err := transform.Expr(e, func(x sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		gf, isField := x.(*expression.GetField)
		if !isField {
			return x, transform.SameTree, nil
		}
		c, found := js.col(gf)
		if !found || !c.Build || c.Side != s || c.ID >= len(bc.idx) || bc.round[c.ID] != roundNone {
			ok = false
			return x, transform.SameTree, nil
		}
		return gf.WithIndex(c.ID), transform.NewTree, nil
	})
	if err != nil || !ok {
		return scan.JoinCol{}, false
	}
	bc.derived = append(bc.derived, derivedCol{key: key, expr: expr, flag: flag, typ: typ})
	bc.types = append(bc.types, typ)
	return scan.JoinCol{Build: true, Side: s, ID: len(bc.types) - 1}, true
}

// tupleExpr rewrites an aggregated expression of several sides' columns
// for scan.TupleSchema: probe columns stay, build columns become their
// tuple fields, and a CASE condition or a function of one build side's
// columns becomes a derived column. It reports false for anything the
// vectorised evaluator could not take (a condition on the probe, a
// function of several sides).
func (js *joinScope) tupleExpr(e sql.Expression) (sql.Expression, bool) {
	switch x := e.(type) {
	case *expression.GetField:
		c, ok := js.col(x)
		if !ok || !c.Build {
			return e, ok
		}
		if js.sides[c.Side].round[c.ID] != roundNone { // stored rounded for a residual
			return nil, false
		}
		return js.tupleField(c, x.Type()), true
	case *expression.Literal:
		return e, true
	case *expression.Case:
		if x.Expr != nil || x.Else == nil {
			return nil, false
		}
		branches := make([]expression.CaseBranch, len(x.Branches))
		for i, b := range x.Branches {
			c, ok := js.derived(b.Cond, true)
			if !ok {
				return nil, false
			}
			v, ok := js.tupleExpr(b.Value)
			if !ok {
				return nil, false
			}
			branches[i] = expression.CaseBranch{Cond: js.tupleField(c, types.Int8), Value: v}
		}
		els, ok := js.tupleExpr(x.Else)
		if !ok {
			return nil, false
		}
		return expression.NewCase(nil, branches, els), true
	case *function.Extract:
		if c, ok := js.derived(e, false); ok { // of one build side: once per build row
			return js.tupleField(c, e.Type()), true
		}
		return js.tupleChildren(e)
	case *expression.Arithmetic, *expression.UnaryMinus, *mysqlfix.IntArithmetic, *mysqlfix.IntNegation, *mysqlfix.CheckedArithmetic:
		return js.tupleChildren(e)
	case *mysqlfix.DecimalChoice:
		// MySQL's DECIMAL CASE: GMS's Case underneath, rewritten, retyped.
		c, ok := x.Expression.(*expression.Case)
		if !ok {
			break
		}
		ne, ok := js.tupleExpr(c)
		if !ok {
			return nil, false
		}
		if d, ok := mysqlfix.NewDecimalChoice(ne); ok {
			return d, true
		}
		return ne, true
	}
	c, ok := js.derived(e, false)
	if !ok {
		return nil, false
	}
	return js.tupleField(c, e.Type()), true
}

// tupleChildren is e with its children rewritten by tupleExpr.
func (js *joinScope) tupleChildren(e sql.Expression) (sql.Expression, bool) {
	ch := e.Children()
	out := make([]sql.Expression, len(ch))
	for i, c := range ch {
		var ok bool
		if out[i], ok = js.tupleExpr(c); !ok {
			return nil, false
		}
	}
	n, err := e.WithChildren(out...)
	return n, err == nil
}

// tupleField is build column c as a field of scan.TupleSchema.
func (js *joinScope) tupleField(c scan.JoinCol, t sql.Type) sql.Expression {
	return expression.NewGetFieldWithTable(0, 0, t, "", "", scan.BuildFieldName(c.Side, c.ID), true)
}

// tupleSchema is scan.TupleSchema over the build columns resolved so far.
func (js *joinScope) tupleSchema() *schema.Schema {
	ts := make([][]schema.Type, len(js.sides))
	for s, sd := range js.sides {
		ts[s] = sd.types
	}
	return scan.TupleSchema(js.pschem, ts)
}

// postCondition reports whether e is an AND / OR tree of conditions each
// on one inner leaf other than probe.
func (t *joinTree) postCondition(e sql.Expression, probe int) bool {
	switch x := e.(type) {
	case *expression.And:
		return t.postCondition(x.LeftChild, probe) && t.postCondition(x.RightChild, probe)
	case *expression.Or:
		return t.postCondition(x.LeftChild, probe) && t.postCondition(x.RightChild, probe)
	}
	set, ok := t.leavesOf(e)
	if !ok || len(set) != 1 || set[probe] || hasSubquery(e) || !deterministic(e) {
		return false
	}
	for l := range set {
		return t.leaves[l].kind == scan.JoinInner
	}
	return false
}

// postFilter translates the post conditions (postCondition's), each
// leaf condition a derived flag column of its side.
func (js *joinScope) postFilter(post []sql.Expression) (scan.JoinFilter, bool) {
	f := scan.JoinFilter{}
	for _, e := range post {
		a, ok := js.filterOf(e)
		if !ok {
			return f, false
		}
		f.Args = append(f.Args, a)
	}
	return f, true
}

func (js *joinScope) filterOf(e sql.Expression) (scan.JoinFilter, bool) {
	var l, r sql.Expression
	or := false
	switch x := e.(type) {
	case *expression.And:
		l, r = x.LeftChild, x.RightChild
	case *expression.Or:
		l, r, or = x.LeftChild, x.RightChild, true
	default:
		c, ok := js.derived(e, true)
		return scan.JoinFilter{Col: c}, ok
	}
	a, ok1 := js.filterOf(l)
	b, ok2 := js.filterOf(r)
	return scan.JoinFilter{Or: or, Args: []scan.JoinFilter{a, b}}, ok1 && ok2
}
