package rewrite

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/lakesql/lakesql/arrowrow"
	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/scan"
)

// deriveChunk is how many build rows are converted to GMS rows at once.
const deriveChunk = 4096

// maxMemo bounds the values a derived column of one input column
// remembers the result of.
const maxMemo = 1 << 16

// derive appends the side's derived columns to rec, which it releases;
// it reports false where a derived value needs the row path: GMS fails
// on some build row's values (the query may never meet that row), or the
// column would not hold the value exactly.
func (b joinBuildSide) derive(ctx *sql.Context, rec arrow.Record) (arrow.Record, []reflect.Type, bool, error) {
	defer rec.Release()
	cols := slices.Clone(rec.Columns())
	fields := slices.Clone(rec.Schema().Fields())
	var made []arrow.Array
	defer func() {
		for _, a := range made {
			a.Release()
		}
	}()
	kinds := make([]reflect.Type, len(b.derived))
	for k, d := range b.derived {
		a, kind, ok, err := b.deriveCol(ctx, rec, d)
		if err != nil || !ok {
			return nil, nil, false, err
		}
		kinds[k] = kind
		made = append(made, a)
		cols = append(cols, a)
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("d%d", k), Type: a.DataType(), Nullable: true})
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows()), kinds, true, nil
}

// deriveCharged is derive with the derived columns charged to charge
// (the base record's already are).
func (b joinBuildSide) deriveCharged(ctx *sql.Context, rec arrow.Record, charge *budget.Charge) (arrow.Record, []reflect.Type, bool, error) {
	before := scan.RecordBytes(rec)
	out, kinds, ok, err := b.derive(ctx, rec)
	if err != nil || !ok {
		return nil, nil, ok, err
	}
	if err := charge.Grow(scan.RecordBytes(out) - before); err != nil {
		out.Release()
		return nil, nil, false, err
	}
	return out, kinds, true, nil
}

// deriveCol computes one derived column over rec's rows, remembering
// results by value when the expression reads one column; kind is the Go
// type of its non-NULL values (the column stores GMS's int as int64).
func (b joinBuildSide) deriveCol(ctx *sql.Context, rec arrow.Record, d derivedCol) (a arrow.Array, kind reflect.Type, ok bool, err error) {
	var used []int
	transform.InspectExpr(d.expr, func(x sql.Expression) bool {
		if gf, ok := x.(*expression.GetField); ok && !slices.Contains(used, gf.Index()) {
			used = append(used, gf.Index())
		}
		return false
	})
	var memo map[any]any
	if len(used) == 1 {
		memo = map[any]any{}
		if key, ok := arrowKeys(rec.Column(used[0])); ok {
			return b.deriveMemo(ctx, rec, d, used[0], key, memo)
		}
	}
	rb := provider.NewRowBuilder(&schema.Schema{Columns: []schema.Column{{ID: 1, Name: "v", Type: d.typ, Nullable: true}}})
	defer rb.Release()
	n := int(rec.NumRows())
	rows := make([]sql.Row, min(n, deriveChunk))
	for i := range rows {
		rows[i] = make(sql.Row, len(b.schema.Columns))
	}
	vals := make([]any, 1)
	for lo := 0; lo < n; lo += deriveChunk {
		if err := ctx.Err(); err != nil { // KILL QUERY
			return nil, nil, false, err
		}
		hi := min(n, lo+deriveChunk)
		part := rec.NewSlice(int64(lo), int64(hi))
		for _, c := range used {
			if err := arrowrow.FillColumn(rows[:hi-lo], c, part.Column(c), b.schema.Columns[c].Type); err != nil {
				part.Release()
				return nil, nil, false, err
			}
		}
		part.Release()
		for _, r := range rows[:hi-lo] {
			v, ok := d.value(ctx, r, used, memo)
			if !ok || !holdsExactly(d.typ, v) {
				return nil, nil, false, nil
			}
			if kind == nil && v != nil {
				kind = reflect.TypeOf(v)
			}
			vals[0] = v
			if err := rb.Append(vals); err != nil {
				return nil, nil, false, nil // not stored exactly: the row path decides
			}
		}
	}
	out := rb.Record()
	defer out.Release()
	a = out.Column(0)
	a.Retain()
	return a, kind, true, nil
}

// valueCols are the result positions of the group keys and of MIN and
// MAX over columns.
func valueCols(groupBy []scan.JoinCol, aggs []scan.JoinAggSpec) map[int]scan.JoinCol {
	out := map[int]scan.JoinCol{}
	for k, c := range groupBy {
		out[k] = c
	}
	for j, a := range aggs {
		if (a.Kind == scan.AggMin || a.Kind == scan.AggMax) && a.Expr == nil {
			out[len(groupBy)+j] = a.Col
		}
	}
	return out
}

// restoreKeyTypes gives the values of derived columns in the result
// (group keys, MIN, MAX) the Go type GMS's expression returns (EXTRACT's
// int), which their column stores as int64.
func (v *vectorJoin) restoreKeyTypes(rows []sql.Row, goTypes [][]reflect.Type) {
	for _, k := range v.intKeys {
		for _, r := range rows {
			if x, ok := r[k].(int64); ok {
				r[k] = int(x)
			}
		}
	}
	for k, c := range v.valueCols {
		d := c.ID - len(v.builds[c.Side].cols)
		if !c.Build || d < 0 || goTypes[c.Side] == nil || goTypes[c.Side][d] == nil {
			continue
		}
		t := goTypes[c.Side][d]
		for _, r := range rows {
			if x := reflect.ValueOf(r[k]); r[k] != nil && x.Type() != t && x.CanConvert(t) && x.CanInt() == (t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64) {
				r[k] = x.Convert(t).Interface()
			}
		}
	}
}

// value evaluates the derived column on one build row, through memo
// (nil: none) keyed by the one column read.
func (d derivedCol) value(ctx *sql.Context, r sql.Row, used []int, memo map[any]any) (any, bool) {
	var key any
	cache := false
	if memo != nil {
		key, cache = memoKey(r[used[0]])
		if v, hit := memo[key]; cache && hit {
			return v, true
		}
	}
	v, err := d.expr.Eval(ctx, r)
	if err != nil {
		return nil, false
	}
	if d.flag {
		flag := int8(0)
		if sql.IsTrue(v) {
			flag = 1
		}
		v = flag
	}
	if cache && len(memo) < maxMemo {
		memo[key] = v
	}
	return v, true
}

// memoKey is v as a map key where == on it is SQL equality of the value
// (not a DECIMAL: shopspring values compare by pointer).
func memoKey(v any) (any, bool) {
	switch x := v.(type) {
	case nil, string, bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64:
		return v, true
	case time.Time:
		return x.UnixNano(), true
	}
	return nil, false
}

// intKeys are the positions of the group keys computed per tuple from
// an EXTRACT (whose Eval returns int).
func intKeys(exprs []sql.Expression, keys []scan.JoinCol) []int {
	var out []int
	for k, c := range keys {
		if _, ok := exprs[k].(*function.Extract); ok && c.Expr != nil {
			out = append(out, k)
		}
	}
	return out
}

// arrowKeys reads a column's values as memo keys without converting
// them to GMS values (a string key views the column's bytes: clone it
// to keep it); ok false for other layouts.
func arrowKeys(a arrow.Array) (func(i int) any, bool) {
	switch x := a.(type) {
	case *array.String:
		return func(i int) any { return x.Value(i) }, true
	case *array.Date32:
		return func(i int) any { return x.Value(i) }, true
	case *array.Int32:
		return func(i int) any { return x.Value(i) }, true
	case *array.Int64:
		return func(i int) any { return x.Value(i) }, true
	}
	return nil, false
}

// deriveMemo is deriveCol for an expression of one column col whose
// values key keys: GMS evaluates it once per distinct value (converted
// from the first row holding it), and every row takes the remembered
// result. Past maxMemo distinct values the rest is evaluated per row.
func (b joinBuildSide) deriveMemo(ctx *sql.Context, rec arrow.Record, d derivedCol, col int, key func(int) any, memo map[any]any) (a arrow.Array, kind reflect.Type, ok bool, err error) {
	rb := provider.NewRowBuilder(&schema.Schema{Columns: []schema.Column{{ID: 1, Name: "v", Type: d.typ, Nullable: true}}})
	defer rb.Release()
	src := rec.Column(col)
	row := []sql.Row{make(sql.Row, len(b.schema.Columns))}
	vals := make([]any, 1)
	var nullVal any
	nullDone := false
	for i := range int(rec.NumRows()) {
		if i%deriveChunk == 0 {
			if err := ctx.Err(); err != nil { // KILL QUERY
				return nil, nil, false, err
			}
		}
		var v any
		var hit bool
		var k any
		if src.IsNull(i) {
			v, hit = nullVal, nullDone
		} else {
			k = key(i)
			v, hit = memo[k]
		}
		if !hit {
			part := rec.NewSlice(int64(i), int64(i+1))
			err := arrowrow.FillColumn(row, col, part.Column(col), b.schema.Columns[col].Type)
			part.Release()
			if err != nil {
				return nil, nil, false, err
			}
			if v, ok = d.value(ctx, row[0], nil, nil); !ok || !holdsExactly(d.typ, v) {
				return nil, nil, false, nil
			}
			switch {
			case k == nil:
				nullVal, nullDone = v, true
			case len(memo) < maxMemo:
				if str, isStr := k.(string); isStr {
					k = strings.Clone(str)
				}
				memo[k] = v
			}
		}
		if kind == nil && v != nil {
			kind = reflect.TypeOf(v)
		}
		vals[0] = v
		if err := rb.Append(vals); err != nil {
			return nil, nil, false, nil // not stored exactly: the row path decides
		}
	}
	out := rb.Record()
	defer out.Release()
	a = out.Column(0)
	a.Retain()
	return a, kind, true, nil
}
