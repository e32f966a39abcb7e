package rewrite

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"

	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/scan"
)

// joinScope resolves the columns a join aggregation references to the
// probe table's fields or to columns of the build sides (each side's
// output columns the plan needs, numbered in first-use order).
type joinScope struct {
	tree   *joinTree
	probe  int // leaf
	pschem *schema.Schema
	sides  []buildCols // by build side, in probing order
	sideOf map[int]int // leaf -> build side
	// exprKeys are the group keys computed per tuple, by expression text.
	exprKeys map[string]scan.JoinCol
}

// buildCols is the columns of one build side the plan reads.
type buildCols struct {
	leaf int
	idx  []int // the leaf's output column per base build column
	// types are the base columns' types, then the derived columns'.
	types   []schema.Type
	round   []roundDir // how each base column's values are rounded (residualType)
	derived []derivedCol
}

func newJoinScope(t *joinTree, probe int, order []int) *joinScope {
	js := &joinScope{tree: t, probe: probe, pschem: t.leaves[probe].table.CatalogSchema(), sideOf: map[int]int{}, exprKeys: map[string]scan.JoinCol{}}
	for s, l := range order {
		js.sides = append(js.sides, buildCols{leaf: l})
		js.sideOf[l] = s
	}
	return js
}

// col resolves a column reference.
func (js *joinScope) col(e sql.Expression) (scan.JoinCol, bool) {
	gf, ok := e.(*expression.GetField)
	if !ok {
		return scan.JoinCol{}, false
	}
	leaf := js.tree.leafOf(gf)
	if leaf < 0 {
		return scan.JoinCol{}, false
	}
	if leaf == js.probe {
		c, ok := js.pschem.Column(gf.Name())
		return scan.JoinCol{ID: c.ID}, ok
	}
	s := js.sideOf[leaf]
	bc := &js.sides[s]
	idx := -1
	for i, c := range js.tree.leaves[leaf].node.Schema() {
		if strings.EqualFold(c.Source, gf.Table()) && strings.EqualFold(c.Name, gf.Name()) {
			if idx >= 0 {
				return scan.JoinCol{}, false
			}
			idx = i
		}
	}
	if idx < 0 {
		return scan.JoinCol{}, false
	}
	for k, i := range bc.idx {
		if i == idx {
			return scan.JoinCol{Build: true, Side: s, ID: k}, true
		}
	}
	t, ok := buildType(js.tree.leaves[leaf].node.Schema()[idx].Type)
	if !ok || len(bc.derived) > 0 { // derived columns follow the base ones
		return scan.JoinCol{}, false
	}
	bc.idx = append(bc.idx, idx)
	bc.types = append(bc.types, t)
	bc.round = append(bc.round, roundNone)
	return scan.JoinCol{Build: true, Side: s, ID: len(bc.idx) - 1}, true
}

// builds turns the equalities into each build side's keys: those with
// the probe or an earlier side.
func (js *joinScope) builds(edges []joinEdge) ([]scan.JoinBuild, bool) {
	out := make([]scan.JoinBuild, len(js.sides))
	rank := func(leaf int) int { // probing position; the probe first
		if leaf == js.probe {
			return -1
		}
		return js.sideOf[leaf]
	}
	for _, e := range edges {
		a, b := e.ea, e.eb
		if rank(e.a) > rank(e.b) {
			a, b = b, a
		}
		on, ok := js.col(a)
		key, ok2 := js.col(b)
		if !ok || !ok2 || !key.Build {
			return nil, false
		}
		out[key.Side].Keys = append(out[key.Side].Keys, key.ID)
		out[key.Side].On = append(out[key.Side].On, on)
	}
	for s, sd := range js.sides {
		for _, r := range js.tree.leaves[sd.leaf].residuals {
			mine, ok := js.col(r.mine)
			other, ok2 := js.col(r.other)
			if !ok || !ok2 || !mine.Build || mine.Side != s || !js.fitResidual(mine, other, r) {
				return nil, false
			}
			out[s].Residuals = append(out[s].Residuals, scan.JoinResidual{Build: mine.ID, Other: other, Op: r.op, Not: r.not})
		}
	}
	return out, true
}

// buildType is the storage type of a build column of GMS type t: a type
// scan holds exactly, strings only under a binary collation (scan
// compares them byte-wise).
func buildType(t sql.Type) (schema.Type, bool) {
	ct, _, err := provider.CatalogType(t)
	if err != nil {
		return schema.Type{}, false
	}
	switch ct.Kind {
	case schema.Bool, schema.Binary, schema.Time, schema.JSON:
		return schema.Type{}, false
	case schema.String:
		st, ok := t.(sql.StringType)
		if !ok || !strings.HasSuffix(st.Collation().Name(), "_bin") {
			return schema.Type{}, false
		}
	}
	return ct, true
}

// probeOnly reports whether every column e references is the probe's.
func (js *joinScope) probeOnly(e sql.Expression) bool {
	set, ok := js.tree.leavesOf(e)
	return ok && len(set) == 1 && set[js.probe]
}

// aggregation translates gb's grouping and selected expressions; out is
// the result column of each selected expression.
func (js *joinScope) aggregation(in aggInput) (groupBy []scan.JoinCol, aggs []scan.JoinAggSpec, out []int, ok bool) {
	js.registerColumns(in.groupBy)
	js.registerColumns(in.selected)
	keyIndex := map[scan.JoinCol]int{}
	for _, e := range in.groupBy {
		c, ok := js.keyCol(e)
		if !ok {
			return nil, nil, nil, false
		}
		keyIndex[c] = len(groupBy)
		groupBy = append(groupBy, c)
	}
	out = make([]int, len(in.selected))
	for i, e := range in.selected {
		if al, ok := e.(*expression.Alias); ok {
			e = al.Child
		}
		if _, isAgg := e.(sql.Aggregation); !isAgg {
			c, ok := js.keyCol(e)
			k, isKey := keyIndex[c]
			if !ok || !isKey {
				return nil, nil, nil, false // a non-grouped column: GMS picks any row's
			}
			out[i] = k
			continue
		}
		spec, ok := js.aggSpec(e)
		if !ok {
			return nil, nil, nil, false
		}
		out[i] = len(groupBy) + len(aggs)
		aggs = append(aggs, spec)
	}
	return groupBy, aggs, out, true
}

// aggSpec translates one aggregate over a column of any side or an
// arithmetic expression of probe columns.
func (js *joinScope) aggSpec(e sql.Expression) (scan.JoinAggSpec, bool) {
	kind, child, ok := aggKind(e)
	if !ok || kind == scan.AggCountStar {
		return scan.JoinAggSpec{Kind: kind}, ok
	}
	scale := resultScale(e)
	if c, ok := js.col(child); ok {
		return scan.JoinAggSpec{Kind: kind, Col: c, Scale: scale}, true
	}
	if js.probeOnly(child) {
		x, ok := scan.CompileExpr(js.pschem, child)
		return scan.JoinAggSpec{Kind: kind, Expr: x, Scale: scale}, ok
	}
	if c, ok := js.derived(child, false); ok {
		return scan.JoinAggSpec{Kind: kind, Col: c, Scale: scale}, true
	}
	te, ok := js.tupleExpr(child)
	if !ok {
		return scan.JoinAggSpec{}, false
	}
	x, ok := scan.CompileExpr(js.tupleSchema(), te)
	return scan.JoinAggSpec{Kind: kind, Expr: x, Scale: scale}, ok
}

// schema is the catalog schema of the side's build record.
func (bc buildCols) schema() *schema.Schema {
	s := &schema.Schema{}
	for k, t := range bc.types[:len(bc.idx)] {
		s.Columns = append(s.Columns, schema.Column{ID: k + 1, Name: fmt.Sprintf("b%d", k), Type: t, Nullable: true})
	}
	return s
}
