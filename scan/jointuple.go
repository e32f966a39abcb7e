package scan

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Expressions over join tuples (an aggregate of l_extendedprice *
// (1 - l_discount) - ps_supplycost * l_quantity, of columns of the probe
// and of a build side) compile against TupleSchema: the probe's columns
// and, as fields of their own, every build column. The join aggregation
// evaluates them on the tuples' values gathered into vectors.

// buildFieldBase is the first field id of a build column in a tuple
// schema; table field ids stay far below it.
const buildFieldBase = 1 << 24

// BuildField is the tuple-schema field id of column col of build side
// side.
func BuildField(side, col int) int { return buildFieldBase + side<<12 + col }

// BuildFieldName is the tuple-schema name of column col of build side
// side: no table column is named so.
func BuildFieldName(side, col int) string { return fmt.Sprintf("\x00b%d.%d", side, col) }

// TupleSchema is the probe's schema with the build columns of types
// (by build side) added as BuildField fields.
func TupleSchema(probe *schema.Schema, types [][]schema.Type) *schema.Schema {
	s := &schema.Schema{Columns: slices.Clone(probe.Columns)}
	for side, ts := range types {
		for k, t := range ts {
			s.Columns = append(s.Columns, schema.Column{ID: BuildField(side, k), Name: BuildFieldName(side, k), Type: t, Nullable: true})
		}
	}
	return s
}

// buildFieldOf reads a tuple-schema field id as a build column.
func buildFieldOf(id int) (side, col int, ok bool) {
	if id < buildFieldBase {
		return 0, 0, false
	}
	id -= buildFieldBase
	return id >> 12, id & (1<<12 - 1), true
}

// readsBuild reports whether the expression reads a build column.
func (e *Expr) readsBuild() bool {
	found := false
	e.root.walk(func(n *enode) {
		if n.readsField() {
			_, _, b := buildFieldOf(n.field)
			found = found || b
		}
	})
	return found
}

// walk calls f on n and every operand below it.
func (n *enode) walk(f func(*enode)) {
	f(n)
	for _, c := range n.operands() {
		c.walk(f)
	}
}

// operands are the nodes n computes from.
func (n *enode) operands() []*enode {
	var out []*enode
	for _, c := range []*enode{n.l, n.r} {
		if c != nil {
			out = append(out, c)
		}
	}
	return append(out, n.args...)
}

// gather copies rows of a fixed-width array into a new array of
// len(rows) values, so that columns of different sides line up by
// tuple; other layouts report false.
func gather(a arrow.Array, rows []int32) (arrow.Array, bool) {
	fw, ok := a.DataType().(arrow.FixedWidthDataType)
	if !ok || fw.BitWidth()%8 != 0 || a.DataType().ID() == arrow.DICTIONARY {
		return nil, false
	}
	w := fw.BitWidth() / 8
	d := a.Data()
	src := d.Buffers()[1].Bytes()[d.Offset()*w:]
	n := len(rows)
	dst := make([]byte, n*w)
	switch w {
	case 8:
		s, t := arrow.Int64Traits.CastFromBytes(src), arrow.Int64Traits.CastFromBytes(dst)
		for k, r := range rows {
			t[k] = s[r]
		}
	case 16:
		s, t := arrow.Decimal128Traits.CastFromBytes(src), arrow.Decimal128Traits.CastFromBytes(dst)
		for k, r := range rows {
			t[k] = s[r]
		}
	default:
		for k, r := range rows {
			copy(dst[k*w:(k+1)*w], src[int(r)*w:(int(r)+1)*w])
		}
	}
	var validity *memory.Buffer
	nulls := 0
	if a.NullN() > 0 {
		bm := make([]byte, bitutil.BytesForBits(int64(n)))
		for k, r := range rows {
			if a.IsValid(int(r)) {
				bitutil.SetBit(bm, k)
			} else {
				nulls++
			}
		}
		validity = memory.NewBufferBytes(bm)
	}
	data := array.NewData(a.DataType(), n, []*memory.Buffer{validity, memory.NewBufferBytes(dst)}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), true
}

// iota32 is 0..n-1, reusing buf.
func iota32(buf []int32, n int) []int32 {
	if cap(buf) >= n && len(buf) >= n {
		return buf[:n]
	}
	buf = sized(buf, n)
	for i := range buf {
		buf[i] = int32(i)
	}
	return buf
}

// addTupleFields adds the probe fields an aggregated expression over
// join tuples reads (before the build columns' places are set) and
// checks the aggregate takes its values.
func (jp *JoinAggPlan) addTupleFields(a JoinAggSpec) bool {
	ok := supportsAgg(a.Kind, a.Expr.resultType()) && (a.Kind != AggMin && a.Kind != AggMax || a.Expr.goTyped())
	return ok && jp.addExprFields(a.Expr)
}

// addExprFields adds the probe fields an expression over join tuples
// reads.
func (jp *JoinAggPlan) addExprFields(e *Expr) bool {
	p := jp.agg
	ok := true
	e.root.walk(func(n *enode) {
		if _, _, build := buildFieldOf(n.field); n.readsField() && !build {
			_, _, found := p.column(n.field)
			ok = ok && found
		}
	})
	return ok
}

// addTupleExprs compiles the aggregated expressions that read build
// columns into tprog, binding fields to record columns.
func (jp *JoinAggPlan) addTupleExprs(aggs []JoinAggSpec) bool {
	jp.tupleExpr = make([]int, len(aggs))
	bind := jp.tupleBind()
	for j, a := range aggs {
		jp.tupleExpr[j] = -1
		if a.Expr == nil || !a.Expr.readsBuild() {
			continue
		}
		k, ok := jp.tprog.add(a.Expr, bind)
		if !ok {
			return false
		}
		jp.tupleExpr[j] = k
	}
	return true
}

// tupleBind binds tuple-schema fields to record columns (the build
// columns' places set).
func (jp *JoinAggPlan) tupleBind() func(id int) (int, bool) {
	return func(id int) (int, bool) {
		if s, c, build := buildFieldOf(id); build {
			col, _, ok := jp.ref(JoinCol{Build: true, Side: s, ID: c}, len(jp.off))
			return col, ok
		}
		col, _, ok := jp.agg.column(id)
		return col, ok
	}
}

// evalTuples computes tprog over the tuples t: each column it reads is
// gathered by tuple (probe rows, or the rows of a build side), and the
// program runs over rows 0..len(t.probe)-1 (pr.iota).
func (pr *prober) evalTuples(rec arrow.Record, t *tuples) error {
	tp := &pr.jp.tprog
	n := len(t.probe)
	pr.iota = iota32(pr.iota, n)
	cols := map[int]arrow.Array{}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i, nd := range tp.nodes {
		c := tp.cols[i]
		if _, done := cols[c]; !nd.readsField() || done {
			continue
		}
		a, sel := pr.column(rec, t, c)
		g, ok := gather(a, sel)
		if !ok { // storage the compiled types did not promise: the row path decides
			return fmt.Errorf("%w: join expression over %s", ErrOverflow, a.DataType())
		}
		cols[c] = g
	}
	return pr.tev.evalCols(func(c int) arrow.Array { return cols[c] }, n, pr.iota)
}

// releaseTuples gives back the tuple evaluator's storage.
func (pr *prober) releaseTuples() {
	if pr.tev != nil {
		pr.tev.release()
	}
}
