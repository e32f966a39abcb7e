package mysqlfix

import (
	"fmt"
	"reflect"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// MySQL 8 types a UNION column over DECIMAL branches (or DECIMAL and
// integer ones) as a DECIMAL with the branches' widest integer part and
// widest scale: CAST(1 AS DECIMAL(5,1)) UNION SELECT 2.25 is
// DECIMAL(6,2), answering 1.00 and 2.25. GMS's binder unifies differing
// branches with CAST AS DECIMAL and no length, its DECIMAL(65,30), and
// leaves each value as its branch made it; it also typed SUM and AVG as
// DOUBLE, so their branches were unified before exactSumAvg gave them
// their DECIMAL types. retyper.setOp gives each such column MySQL's type
// and converts each branch's values to it; the column ids the SetOp's
// references carry then propagate the type like any other retyping.

// unionDecimalType is MySQL's type of a UNION column over branch types a
// and b, or false when it is not a DECIMAL made of DECIMAL and integer
// branches.
func unionDecimalType(a, b sql.Type) (sql.DecimalType, bool) {
	_, da := a.(sql.DecimalType)
	_, db := b.(sql.DecimalType)
	if !da && !db {
		return nil, false
	}
	pa, sa, oka := decimalDigits(a)
	pb, sb, okb := decimalDigits(b)
	if !oka || !okb {
		return nil, false
	}
	scale := min(int(max(sa, sb)), types.DecimalTypeMaxScale)
	prec := min(max(int(pa-sa), int(pb-sb))+scale, types.DecimalTypeMaxPrecision)
	t, err := types.CreateColumnDecimalType(uint8(prec), uint8(scale))
	if err != nil {
		return nil, false
	}
	return t, true
}

// setOp retypes u's DECIMAL columns as MySQL does, or returns it as it
// is when none differs from MySQL's type.
func (r *retyper) setOp(u *plan.SetOp) (sql.Node, bool, error) {
	left, lok := u.Left().(*plan.Project)
	right, rok := u.Right().(*plan.Project)
	if !lok || !rok || len(left.Projections) != len(right.Projections) {
		return u, false, nil
	}
	lp, rp := append([]sql.Expression(nil), left.Projections...), append([]sql.Expression(nil), right.Projections...)
	ls, rs := branchTypes(left), branchTypes(right)
	changed := false
	for i := range lp {
		t, ok := unionDecimalType(ls[i], rs[i])
		if !ok || (t.Equals(lp[i].Type()) && t.Equals(rp[i].Type())) {
			continue
		}
		l, lok := toUnionDecimal(lp[i], t)
		rr, rok := toUnionDecimal(rp[i], t)
		if !lok || !rok {
			continue
		}
		lp[i], rp[i], changed = l, rr, true
	}
	if !changed {
		return u, false, nil
	}
	nl, err := left.WithExpressions(lp...)
	if err != nil {
		return u, false, err
	}
	nr, err := right.WithExpressions(rp...)
	if err != nil {
		return u, false, err
	}
	out, err := u.WithChildren(nl, nr)
	if err != nil {
		return u, false, err
	}
	for i, c := range colIDs(u) {
		if i < len(lp) && c != 0 {
			r.byID[c] = lp[i].Type()
		}
	}
	return out, true, nil
}

// colIDs are the ids the references to u's columns carry: its left
// branch's, as the binder's scope for a UNION is its left branch's.
func colIDs(u *plan.SetOp) []sql.ColumnId {
	var ids []sql.ColumnId
	u.Columns().ForEach(func(c sql.ColumnId) { ids = append(ids, c) })
	return ids
}

// branchTypes is the type each column of a UNION branch p has before the
// binder's unifying conversion: the converted column's.
func branchTypes(p *plan.Project) []sql.Type {
	inner := p.Child.Schema()
	out := make([]sql.Type, len(p.Projections))
	for i, e := range p.Projections {
		out[i] = e.Type()
		if _, ok := unionConversion(e); ok && len(inner) == len(p.Projections) {
			out[i] = inner[i].Type
		}
	}
	return out
}

// unionConversion is the column a binder's unifying conversion (an alias
// of CAST(column AS DECIMAL) or of a conversion made here) converts.
func unionConversion(e sql.Expression) (*expression.GetField, bool) {
	a, ok := e.(*expression.Alias)
	if !ok {
		return nil, false
	}
	var child sql.Expression
	switch c := a.Child.(type) {
	case *expression.Convert:
		if !binderDecimalConversion(c) {
			return nil, false
		}
		child = c.Child
	case *unionDecimal:
		child = c.child
	default:
		return nil, false
	}
	gf, ok := child.(*expression.GetField)
	return gf, ok
}

// toUnionDecimal converts branch column e to t, keeping its name and id.
func toUnionDecimal(e sql.Expression, t sql.DecimalType) (sql.Expression, bool) {
	a, ok := e.(*expression.Alias)
	if !ok {
		return nil, false
	}
	child := a.Child
	if gf, ok := unionConversion(e); ok {
		child = gf
	}
	// Alias.WithChildren drops the id the SetOp's references use.
	out := expression.NewAlias(a.Name(), &unionDecimal{child: child, typ: t}).WithId(a.Id()).(*expression.Alias)
	if a.Unreferencable() {
		out = out.AsUnreferencable()
	}
	return out, true
}

// unionDecimal is a UNION branch's value converted to the UNION column's
// DECIMAL type: rounded to its scale (MySQL widens the integer part, so
// the value fits).
type unionDecimal struct {
	child sql.Expression
	typ   sql.DecimalType
}

var _ sql.Expression = (*unionDecimal)(nil)

func (u *unionDecimal) Resolved() bool             { return u.child.Resolved() }
func (u *unionDecimal) String() string             { return u.child.String() }
func (u *unionDecimal) Type() sql.Type             { return u.typ }
func (u *unionDecimal) IsNullable() bool           { return u.child.IsNullable() }
func (u *unionDecimal) Children() []sql.Expression { return []sql.Expression{u.child} }

func (u *unionDecimal) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(u, len(children), 1)
	}
	return &unionDecimal{child: children[0], typ: u.typ}, nil
}

func (u *unionDecimal) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := u.child.Eval(ctx, row)
	if v == nil || err != nil {
		return v, err
	}
	d, err := u.typ.ConvertNoBoundsCheck(v)
	if err != nil {
		return nil, fmt.Errorf("mysqlfix: UNION column as %s: %w", u.typ, err)
	}
	out, _, err := u.typ.BoundsCheck(d.Round(int32(u.typ.Scale())))
	if err != nil {
		return nil, fmt.Errorf("mysqlfix: UNION column as %s: %w", u.typ, err)
	}
	return out, nil
}

// DebugString names the conversion in plans.
func (u *unionDecimal) DebugString() string {
	return fmt.Sprintf("union_decimal(%s as %s)", sql.DebugString(u.child), u.typ)
}

// binderDecimalConversion reports whether c is a conversion the binder
// made to unify UNION branches: CAST AS DECIMAL with no length (a user's
// has one by now, decimalCastLength).
func binderDecimalConversion(c *expression.Convert) bool {
	if c.Type() != types.InternalDecimalType {
		return false
	}
	length := reflect.ValueOf(c).Elem().FieldByName("typeLength")
	return length.IsValid() && length.Int() == 0
}
