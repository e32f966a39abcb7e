package mysqlfix

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// sortByName retypes the ORDER BY references to a select-list alias of a
// retyped SUM or AVG (ORDER BY revenue DESC, TPC-H Q10). The binder gives
// such a reference a column id of its own, which no alias carries (the
// alias's id is 0), so the id propagation of exactSumAvg misses it and
// the sort compared exact DECIMAL sums as DOUBLE: sums that differ past
// the 16th digit came out in input order. The reference is matched by
// name to the one column of the sort's input that bears it.
func (r *retyper) sortByName(s *plan.Sort) (*plan.Sort, bool) {
	sch := s.Child.Schema()
	var fields sql.SortFields
	for i, f := range s.SortFields {
		gf, ok := f.Column.(*expression.GetField)
		if !ok {
			continue
		}
		if _, known := r.byID[gf.Id()]; known {
			continue
		}
		t, ok := uniqueColumnType(sch, gf)
		if !ok {
			continue
		}
		if _, dec := t.(sql.DecimalType); !dec || t.Equals(gf.Type()) {
			continue
		}
		if fields == nil {
			fields = append(sql.SortFields{}, s.SortFields...)
		}
		ngf := expression.NewGetFieldWithTable(gf.Index(), int(gf.TableId()), t, gf.Database(), gf.Table(), gf.Name(), true)
		fields[i].Column = ngf.WithId(gf.Id()).(*expression.GetField)
	}
	if fields == nil {
		return nil, false
	}
	r.changed = true
	return plan.NewSort(fields, s.Child), true
}

// uniqueColumnType is the type of the one column of sch that gf names
// (by name, and by table when gf has one); false when none or several do.
func uniqueColumnType(sch sql.Schema, gf *expression.GetField) (sql.Type, bool) {
	var t sql.Type
	n := 0
	for _, c := range sch {
		if !strings.EqualFold(c.Name, gf.Name()) || gf.Table() != "" && !strings.EqualFold(c.Source, gf.Table()) {
			continue
		}
		t, n = c.Type, n+1
	}
	return t, n == 1
}
