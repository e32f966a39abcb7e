package mysqlfix

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// exactSumAvg swaps GMS's SUM and AVG over integers and DECIMALs for Sum
// and Avg, its integer + - * for IntArithmetic (intarith.go), its CAST
// AS DECIMAL(M,D) for decimalCast (decimalcast.go), the DECIMAL number
// functions for theirs (decimalround.go, decimalchoice.go, decimaldiv.go,
// decimalin.go, numoverflow.go), and
// retypes every reference to them. It runs before GMS's
// analysis, on the plan the binder made: the binder typed each reference
// to a SUM or AVG column (GetField) as DOUBLE, and so did each alias of
// one, each derived-table column over one and each reference to those. A
// reference carries its column's id (ids are unique in a query), so the
// new types propagate by id until nothing changes.
func exactSumAvg(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	r := retyper{byID: map[sql.ColumnId]sql.Type{}, byTable: map[tableCol]sql.Type{}}
	out, same, err := r.node(n)
	if err != nil || same == transform.SameTree || !r.swapped {
		return n, transform.SameTree, err
	}
	for range 8 { // each pass reaches one more level of aliases
		r.changed = false
		if out, _, err = r.node(out); err != nil {
			return n, transform.SameTree, err
		}
		if !r.changed {
			break
		}
	}
	return out, transform.NewTree, nil
}

// retyped reports whether e is a reference retyped here or an
// expression over one.
func (r *retyper) retyped(e sql.Expression) bool {
	return transform.InspectExpr(e, func(e sql.Expression) bool {
		switch x := e.(type) {
		case *Sum, *Avg:
			return true
		case *IntArithmetic:
			return x.unsigned // GMS typed it signed
		case *IntNegation:
			return x.Widened() // GMS typed it unsigned or as narrow as its operand
		case *IntAbs:
			return x.Widened() // GMS typed it as narrow as its operand
		case *DateArith:
			return true // GMS typed it DATETIME(6)
		case *Extreme:
			return true // GMS typed it BIGINT, DOUBLE or DATETIME(6)
		case *TemporalCoalesce:
			return true // GMS typed it TEXT
		case *IntDivision:
			return true // GMS typed MOD as DECIMAL
		case *decimalCast:
			return true // GMS typed it DECIMAL(65,30)
		case *unionDecimal:
			return true // GMS typed the UNION column DECIMAL(65,30)
		case *Rounding:
			return true // GMS typed FLOOR/CEILING/ROUND INT or at the argument's scale
		case *DecimalChoice:
			return true // GMS typed it as one of its values
		case *DecimalDiv:
			return true // GMS typed it by its own division rules
		case *CheckedArithmetic:
			return types.IsDecimal(x.Type()) // GMS's precision and scale differ
		case *expression.GetField:
			_, ok := r.byID[x.Id()]
			return ok
		}
		return false
	})
}

type tableCol struct {
	table sql.TableId
	name  string
}

// retyper carries the decimal types found so far, by column id and by
// derived table column.
type retyper struct {
	byID    map[sql.ColumnId]sql.Type
	byTable map[tableCol]sql.Type
	swapped bool // a SUM or AVG was replaced
	changed bool // this pass retyped a reference
}

func (r *retyper) node(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	// Derived tables and set operations are opaque to transform.Node.
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		out, same, err := transform.NodeExprs(n, r.expr)
		if err != nil {
			return n, transform.SameTree, err
		}
		switch x := out.(type) {
		case *plan.Project:
			if p, ok := printedQuotients(x); ok {
				return p, transform.NewTree, nil
			}
		case *plan.SubqueryAlias:
			if x.Id() == 0 {
				break
			}
			for _, c := range x.Schema() {
				if _, dec := c.Type.(sql.DecimalType); dec || types.IsInteger(c.Type) || types.IsTime(c.Type) {
					r.byTable[tableCol{x.Id(), strings.ToLower(c.Name)}] = c.Type
				}
			}
		case *plan.SetOp:
			u, changed, err := r.setOp(x)
			if err != nil || !changed {
				return out, same, err
			}
			r.swapped, r.changed = true, true
			return u, transform.NewTree, nil
		case *plan.CreateTable:
			if ct, ok := r.createTableSelect(x); ok {
				return ct, transform.NewTree, nil
			}
		case *plan.Sort:
			if s, ok := r.sortByName(x); ok {
				return s, transform.NewTree, nil
			}
		}
		return out, same, nil
	})
}

// createTableSelect retypes the columns of CREATE TABLE ... AS SELECT
// without column definitions: the binder copied them from the SELECT's
// schema as it was then (DOUBLE for SUM and AVG), and GMS keeps those
// types over the analysed SELECT's.
func (r *retyper) createTableSelect(ct *plan.CreateTable) (*plan.CreateTable, bool) {
	if ct.Select() == nil {
		return nil, false
	}
	spec, sel := ct.PkSchema(), ct.Select().Schema()
	if len(spec.Schema) != len(sel) {
		return nil, false
	}
	var cols sql.Schema
	for i, c := range spec.Schema {
		if !strings.EqualFold(c.Name, sel[i].Name) {
			return nil, false // column definitions of the user's
		}
		d, dec := sel[i].Type.(sql.DecimalType)
		if (dec && !c.Type.Equals(sel[i].Type)) || (sel[i].Nullable && !c.Nullable) {
			if cols == nil {
				cols = spec.Schema.Copy()
			}
			if dec {
				cols[i].Type = storable(d)
			}
			cols[i].Nullable = sel[i].Nullable
		}
	}
	if cols == nil {
		return nil, false
	}
	r.changed = true
	return plan.NewCreateTableSelect(ct.Db, ct.Name(), ct.IfNotExists(), ct.Temporary(), ct.Select(), &plan.TableSpec{
		Schema: sql.NewPrimaryKeySchema(cols, spec.PkOrdinals...), IdxDefs: ct.Indexes(), FkDefs: ct.ForeignKeys(),
		ChDefs: ct.Checks(), Collation: ct.Collation, TableOpts: ct.TableOpts,
	}), true
}

func (r *retyper) expr(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch x := e.(type) {
		case *aggregation.Sum:
			if s, ok := NewSum(x); ok {
				r.byID[x.Id()], r.swapped = s.typ, true
				return s, transform.NewTree, nil
			}
		case *aggregation.Avg:
			if a, ok := NewAvg(x); ok {
				r.byID[x.Id()], r.swapped = a.typ, true
				return a, transform.NewTree, nil
			}
		case *expression.Arithmetic:
			if a, ok := NewIntArithmetic(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
			if a, ok := NewCheckedArithmetic(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
		case *expression.Div:
			if a, ok := NewDecimalDiv(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
			if a, ok := NewCheckedArithmetic(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
		case *function.Floor, *function.Ceil, *function.Round:
			if a, ok := NewRounding(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
		case *expression.Case, *function.If:
			if a, ok := NewDecimalChoice(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
		case *expression.InTuple:
			if a, ok := exactDecimalIn(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
		case *expression.UnaryMinus:
			if a, ok := NewIntNegation(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
		case *function.DateAdd, *function.DateSub:
			if a, ok := NewDateArith(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
		case *function.Coalesce, *function.IfNull:
			if a, ok := NewTemporalCoalesce(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
			if a, ok := NewDecimalChoice(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
		case *function.Greatest, *function.Least:
			if a, ok := NewExtreme(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
		case *function.AbsVal:
			if a, ok := NewIntAbs(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
		case *expression.IntDiv, *expression.Mod:
			if a, ok := NewIntDivision(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
			if a, ok := NewCheckedArithmetic(x); ok {
				r.swapped = true
				return a, transform.NewTree, nil
			}
		case *expression.Convert:
			if c, ok := NewDecimalCast(x); ok {
				r.swapped = true
				return c, transform.NewTree, nil
			}
			if c, ok := textOfDecimal(x); ok {
				r.swapped = true
				return c, transform.NewTree, nil
			}
		case *aggregation.Max:
			r.retypeAggregate(x.Id(), x.Child, x.Type())
		case *aggregation.Min:
			r.retypeAggregate(x.Id(), x.Child, x.Type())
		case *expression.Alias:
			if _, ok := r.byID[x.Id()]; !ok && x.Id() != 0 && r.retyped(x.Child) {
				r.byID[x.Id()] = x.Type()
			}
		case *plan.Subquery:
			q, same, err := r.node(x.Query)
			if err != nil || same {
				return e, transform.SameTree, err
			}
			return x.WithQuery(q), transform.NewTree, nil
		case *expression.GetField:
			t, ok := r.byID[x.Id()]
			if !ok {
				t, ok = r.byTable[tableCol{x.TableId(), strings.ToLower(x.Name())}]
			}
			if !ok || (t.Equals(x.Type()) && x.IsNullable()) {
				return e, transform.SameTree, nil
			}
			r.changed = true
			// SUM and AVG are NULL over no rows, whatever the binder said.
			gf := expression.NewGetFieldWithTable(x.Index(), int(x.TableId()), t, x.Database(), x.Table(), x.Name(), true)
			return gf.WithId(x.Id()).(*expression.GetField), transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// retypeAggregate records the type of MAX or MIN (id) over a retyped
// child: the binder typed references to it by the child's old type.
func (r *retyper) retypeAggregate(id sql.ColumnId, child sql.Expression, t sql.Type) {
	if _, ok := r.byID[id]; !ok && id != 0 && r.retyped(child) {
		r.byID[id] = t
	}
}

// storedPrecision is the widest DECIMAL a lakesql dataset stores (Parquet
// DECIMAL in 128 bits).
const storedPrecision = 38

// storable narrows a SUM or AVG type wider than a dataset column can be to
// 38 digits: SUM(BIGINT) is DECIMAL(41,0) but would need 10^19 rows to
// exceed 38 digits, and a value that does is refused on write (1264)
// rather than the whole CREATE ... AS SELECT.
func storable(t sql.DecimalType) sql.Type {
	if t.Precision() <= storedPrecision {
		return t
	}
	return types.MustCreateDecimalType(storedPrecision, min(t.Scale(), storedPrecision))
}
