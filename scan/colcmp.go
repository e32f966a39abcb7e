package scan

import (
	"cmp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// colPred is a comparison of two columns of a record (a conjunct such as
// l_commitdate < l_receiptdate): it selects rows but prunes nothing.
type colPred struct {
	l, r int // record columns
	op   Op
}

// columnComparison compiles a conjunct comparing two columns of p's table
// whose values GMS compares as they are stored (same kind; integers of
// any signed or small unsigned width; DECIMALs of one scale; strings of
// a binary collation), or reports false.
func (p *AggPlan) columnComparison(e sql.Expression) (colPred, bool) {
	c, ok := e.(expression.Comparer)
	if !ok {
		return colPred{}, false
	}
	op, ok := compareOp(c)
	if !ok {
		return colPred{}, false
	}
	lc, lok := column(p.schema, c.Left())
	rc, rok := column(p.schema, c.Right())
	if !lok || !rok || !comparableColumns(lc, rc) {
		return colPred{}, false
	}
	l, _, _ := p.column(lc.ID)
	r, _, _ := p.column(rc.ID)
	return colPred{l: l, r: r, op: op}, true
}

func comparableColumns(a, b schema.Column) bool {
	if a.Type.Kind == schema.String && (!binaryCollation(a) || !binaryCollation(b)) {
		return false
	}
	return comparableTypes(a.Type, b.Type)
}

// comparableTypes reports whether GMS compares values of types a and b as
// scan stores them (strings: when both compare byte-wise).
func comparableTypes(a, b schema.Type) bool {
	integer := func(t schema.Type) bool {
		switch t.Kind {
		case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32:
			return true
		}
		return false
	}
	switch {
	case integer(a):
		return integer(b)
	case a.Kind == schema.Decimal:
		return b.Kind == schema.Decimal && a.Scale == b.Scale
	case a.Kind == schema.String, a.Kind == schema.Date, a.Kind == schema.Timestamp:
		return a.Kind == b.Kind
	}
	return false
}

// selectColumns keeps the rows of sel where every comparison holds (NULL
// never does).
func selectColumns(rec arrow.Record, preds []colPred, sel []int32) []int32 {
	for _, cp := range preds {
		cmpAt, ok := comparer(rec.Column(cp.l), rec.Column(cp.r))
		out := sel[:0]
		for _, i := range sel {
			if c, ok2 := cmpAt(int(i), int(i)); ok && ok2 && match(cp.op, c) {
				out = append(out, i)
			}
		}
		sel = out
	}
	return sel
}

// comparer compares row i of a with row j of b (false: a NULL).
func comparer(a, b arrow.Array) (func(i, j int) (int, bool), bool) {
	null := func(i, j int) bool { return a.IsNull(i) || b.IsNull(j) }
	if x, ok := a.(*array.Timestamp); ok { // at the files' precision, as the row path reads them
		y, ok := b.(*array.Timestamp)
		if !ok {
			return nil, false
		}
		xu, yu := x.DataType().(*arrow.TimestampType).Unit, y.DataType().(*arrow.TimestampType).Unit
		return func(i, j int) (int, bool) {
			if null(i, j) {
				return 0, false
			}
			return timestampValue(int64(x.Value(i)), xu).Compare(timestampValue(int64(y.Value(j)), yu)), true
		}, true
	}
	if ai, ok := intValues(a); ok {
		bi, ok := intValues(b)
		return func(i, j int) (int, bool) {
			if null(i, j) {
				return 0, false
			}
			return cmp.Compare(ai(i), bi(j)), true
		}, ok
	}
	switch x := a.(type) {
	case *array.Decimal128:
		y, ok := b.(*array.Decimal128)
		return func(i, j int) (int, bool) {
			if null(i, j) {
				return 0, false
			}
			return x.Value(i).Cmp(y.Value(j)), true
		}, ok
	case *array.String:
		y, ok := b.(*array.String)
		return func(i, j int) (int, bool) {
			if null(i, j) {
				return 0, false
			}
			return strings.Compare(x.Value(i), y.Value(j)), true
		}, ok
	}
	return nil, false
}

// intValues reads integers and dates (days) as int64.
func intValues(a arrow.Array) (func(i int) int64, bool) {
	switch x := a.(type) {
	case *array.Int8:
		return func(i int) int64 { return int64(x.Value(i)) }, true
	case *array.Int16:
		return func(i int) int64 { return int64(x.Value(i)) }, true
	case *array.Int32:
		return func(i int) int64 { return int64(x.Value(i)) }, true
	case *array.Int64:
		return x.Value, true
	case *array.Uint8:
		return func(i int) int64 { return int64(x.Value(i)) }, true
	case *array.Uint16:
		return func(i int) int64 { return int64(x.Value(i)) }, true
	case *array.Uint32:
		return func(i int) int64 { return int64(x.Value(i)) }, true
	case *array.Date32:
		return func(i int) int64 { return int64(x.Value(i)) }, true
	}
	return nil, false
}
