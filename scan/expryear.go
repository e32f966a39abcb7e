package scan

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// compileYear compiles EXTRACT(YEAR FROM d) of a DATE column d: an
// integer, NULL where d is. (Other units, and DATETIME, whose value GMS
// may shift by time zone, stay on the row path.)
func compileYear(s *schema.Schema, x *function.Extract) (*enode, bool) {
	unit, ok := x.LeftChild.(*expression.Literal)
	if !ok {
		return nil, false
	}
	u, ok := unit.Value().(string)
	if !ok || !strings.EqualFold(u, "YEAR") {
		return nil, false
	}
	c, ok := column(s, x.RightChild)
	if !ok || c.Type.Kind != schema.Date {
		return nil, false
	}
	return &enode{op: opYear, dom: domInt, field: c.ID, kind: schema.Date, key: fmt.Sprintf("y%d", c.ID)}, true
}

// readsField reports whether the node reads a column (field).
func (n *enode) readsField() bool { return n.op == opColumn || n.op == opYear }

// year computes EXTRACT(YEAR) of a DATE column's days since 1970-01-01.
func (ev *evaluator) year(i int, v *vec, a arrow.Array, n int, sel []int32) error {
	d, ok := a.(*array.Date32)
	if !ok {
		return fmt.Errorf("%w: EXTRACT(YEAR) over %s", ErrOverflow, a.DataType())
	}
	v.valid = ev.validOf(i, a, n)
	v.ints = ev.ownInts(i, n)
	days := d.Date32Values()
	for _, r := range sel {
		v.ints[r] = civilYear(int64(days[r]))
	}
	return nil
}

// civilYear is the proleptic Gregorian year of a day number (days since
// 1970-01-01), by Howard Hinnant's civil_from_days.
func civilYear(z int64) int64 {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	if mp >= 10 { // January or February: the next civil year
		y++
	}
	return y
}
