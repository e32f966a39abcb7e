package scan

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/mysqlfix"
)

// ErrOverflow reports that a vectorised expression left the 128-bit range
// the pipeline computes DECIMALs in (GMS's are unbounded), or that an
// expression or aggregate hit a value GMS's row path rejects (-BIGINT_MIN;
// a string beyond TEXT's length under COUNT(DISTINCT)). The caller reruns the query on the
// row path, which computes the exact answer or its own error.
var ErrOverflow = errors.New("scan: vectorised expression out of range")

// domain is the Go representation GMS's row path evaluates an expression
// in, as its sql.Type decides (Arithmetic.Type, convertLeftRight): int64
// and uint64 arithmetic wraps like Go's, float64 is IEEE, and DECIMAL is
// exact with a scale fixed by the expression's shape (shopspring: + and -
// take the larger scale, * adds them).
type domain uint8

const (
	domInt domain = iota + 1
	domUint
	domFloat
	domDec
)

// Expr is an arithmetic expression (columns, literals, + - *, unary minus
// over integer, float and DECIMAL columns) compiled to evaluate over column
// vectors with exactly the values and Go types GMS's row path produces.
type Expr struct {
	root *enode
}

// nodeOp is an enode's operation. The arithmetic ones are the bytes of
// GMS's operator text, so compileArith takes them from it directly.
type nodeOp byte

const (
	opColumn  nodeOp = 'c' // a column's vector
	opConst   nodeOp = 'k' // a constant, in the node's domain
	opAdd     nodeOp = '+'
	opSub     nodeOp = '-'
	opMul     nodeOp = '*'
	opNeg     nodeOp = 'n' // unary minus (l only)
	opConvert nodeOp = 'v' // l converted to the node's domain (l only)
	opCase    nodeOp = 'w' // CASE WHEN args[0] THEN args[1] ... ELSE args[last] END
	opYear    nodeOp = 'y' // EXTRACT(YEAR) of a DATE column (field)
)

// enode is one node of a compiled expression.
type enode struct {
	op    nodeOp
	dom   domain
	scale int32       // domDec: the scale of every value
	field int         // opColumn: field id
	kind  schema.Kind // opColumn: the column's kind
	l, r  *enode      // operands (opNeg, opConvert: l only)
	// opCase: condition and value of each branch, then the ELSE value;
	// facs rescale each value to the node's scale (domDec)
	args []*enode
	facs []decimal128.Num
	// opConst: the value, in dom
	i int64
	u uint64
	f float64
	d decimal128.Num
	// domDec opAdd, opSub: operand rescale factors (1: none)
	fl, fr decimal128.Num
	// opNeg over a 64-bit integer: -MinInt64 is an error in GMS
	check64 bool
	// integer + - *: a result out of range is an error (MySQL's 1690),
	// not Go's wrapped value; DOUBLE + - *: a result of ±Inf is
	checked bool
	key     string // canonical text: equal keys compute equal vectors
}

// CompileExpr compiles e over s, or reports false when e is not an
// expression the vectorised path computes exactly as GMS's row path does:
// division, functions, non-numeric columns, DECIMAL mixed with floats
// (other than as a literal), unsigned values where GMS would convert them
// to signed, or an expression without any column.
func CompileExpr(s *schema.Schema, e sql.Expression) (*Expr, bool) {
	n, ok := compileNode(s, e)
	if !ok || n.op == opConst {
		return nil, false
	}
	return &Expr{root: n}, true
}

// typeDomain is the domain GMS evaluates a value of type t in.
func typeDomain(t sql.Type) (domain, bool) {
	switch {
	case types.IsFloat(t):
		return domFloat, true
	case types.IsDecimal(t):
		return domDec, true
	case types.IsUnsigned(t):
		return domUint, true
	case types.IsInteger(t):
		return domInt, true
	}
	return 0, false
}

func kindDomain(k schema.Kind) (domain, bool) {
	switch k {
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64:
		return domInt, true
	case schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64:
		return domUint, true
	case schema.Float32, schema.Float64:
		return domFloat, true
	case schema.Decimal:
		return domDec, true
	}
	return 0, false
}

func compileNode(s *schema.Schema, e sql.Expression) (*enode, bool) {
	switch x := e.(type) {
	case *expression.GetField:
		c, ok := column(s, x)
		if !ok {
			return nil, false
		}
		d, ok := kindDomain(c.Type.Kind)
		if !ok {
			return nil, false
		}
		n := &enode{op: opColumn, dom: d, field: c.ID, kind: c.Type.Kind}
		if d == domDec {
			n.scale = int32(c.Type.Scale)
		}
		n.key = fmt.Sprintf("c%d/%d", c.ID, d)
		return n, true
	case *expression.Literal:
		return constant(x.Type(), x.Value())
	case *expression.UnaryMinus:
		return compileNeg(s, x)
	case *expression.Arithmetic:
		return compileArith(s, x)
	case *mysqlfix.IntArithmetic:
		return compileIntArith(s, x)
	case *expression.Case:
		return compileCase(s, x)
	case *mysqlfix.DecimalChoice:
		// MySQL's DECIMAL CASE: the same values, GMS's Case underneath.
		if c, ok := x.Expression.(*expression.Case); ok {
			return compileCase(s, c)
		}
	case *function.Extract:
		return compileYear(s, x)
	case *mysqlfix.CheckedArithmetic:
		return compileChecked(s, x)
	case *mysqlfix.IntNegation:
		if x.Unsigned() {
			return nil, false // a signed result of an unsigned operand: the row path
		}
		return compileNeg(s, x.UnaryMinus) // -BIGINT_MIN: ErrOverflow, then the row path's 1690
	}
	return nil, false
}

// compileChecked compiles MySQL's range-checked DOUBLE and DECIMAL
// + - * (the row path's mysqlfix.CheckedArithmetic): a DOUBLE result of
// ±Inf is ErrOverflow, so the row path raises its 1690; a DECIMAL leaves
// the 128-bit range long before MySQL's 81 digits, with the same fallback.
func compileChecked(s *schema.Schema, x *mysqlfix.CheckedArithmetic) (*enode, bool) {
	a := x.Arithmetic()
	if a == nil {
		return nil, false // a DOUBLE division: not vectorised
	}
	n, ok := compileArith(s, a)
	if !ok || n.op == opConst {
		return n, ok
	}
	if n.dom == domFloat {
		n.checked = true
		n.key = "!" + n.key
	}
	return n, true
}

// compileIntArith compiles MySQL's overflow-checked integer + - * (the
// row path's mysqlfix.IntArithmetic). Both operands must already be in
// the result's domain: a signed operand of an unsigned result (f + -1)
// stays on the row path.
func compileIntArith(s *schema.Schema, x *mysqlfix.IntArithmetic) (*enode, bool) {
	d := domInt
	if x.Unsigned() {
		d = domUint
	}
	l, ok1 := compileNode(s, x.LeftChild)
	r, ok2 := compileNode(s, x.RightChild)
	if !ok1 || !ok2 {
		return nil, false
	}
	if l.op == opConst && r.op == opConst {
		v, err := x.Eval(sql.NewEmptyContext(), nil)
		if err != nil {
			return nil, false
		}
		return constant(x.Type(), v)
	}
	l, r = unsignedConst(l, d), unsignedConst(r, d)
	if l, ok1 = coerce(l, x.LeftChild.Type(), d); !ok1 {
		return nil, false
	}
	if r, ok2 = coerce(r, x.RightChild.Type(), d); !ok2 {
		return nil, false
	}
	n := &enode{op: nodeOp(x.Op[0]), dom: d, l: l, r: r, checked: true}
	n.key = "!(" + l.key + x.Op + r.key + ")"
	return n, true
}

// constant is a literal value v of type t, in its own domain.
func constant(t sql.Type, v any) (*enode, bool) {
	if v == nil {
		return nil, false // NULL arithmetic: rare, and typed oddly
	}
	d, ok := typeDomain(t)
	if !ok {
		return nil, false
	}
	n := &enode{op: opConst, dom: d}
	return n, n.setConst(t, v)
}

// setConst stores v converted to n.dom as GMS converts operands
// (convertValueToType, convertToDecimalValue).
func (n *enode) setConst(t sql.Type, v any) bool {
	ctx := context.Background()
	switch n.dom {
	case domInt:
		x, _, err := types.Int64.Convert(ctx, v)
		i, ok := x.(int64)
		if err != nil || !ok {
			return false
		}
		n.i, n.key = i, fmt.Sprintf("k%d", i)
	case domUint:
		x, _, err := types.Uint64.Convert(ctx, v)
		u, ok := x.(uint64)
		if err != nil || !ok || !types.IsUnsigned(t) {
			return false
		}
		n.u, n.key = u, fmt.Sprintf("ku%d", u)
	case domFloat:
		x, _, err := types.Float64.Convert(ctx, v)
		f, ok := x.(float64)
		if err != nil || !ok {
			return false
		}
		n.f, n.key = f, fmt.Sprintf("kf%x", math.Float64bits(f))
	case domDec:
		var d decimal.Decimal
		switch x := v.(type) {
		case decimal.Decimal:
			d = x
		case int8, int16, int32, int64, uint8, uint16, uint32, uint64:
			d, _ = decimal.NewFromString(fmt.Sprint(x)) // exponent 0, like NewFromInt
		default:
			return false
		}
		if d.Exponent() > 0 {
			return false // a positive exponent would change the result's scale
		}
		c := d.Coefficient()
		if c.BitLen() > 126 {
			return false
		}
		n.d, n.scale = decimal128.FromBigInt(c), -d.Exponent()
		n.key = fmt.Sprintf("kd%se%d", c, n.scale)
	}
	return true
}

func compileNeg(s *schema.Schema, x *expression.UnaryMinus) (*enode, bool) {
	c, ok := compileNode(s, x.Child)
	if !ok {
		return nil, false
	}
	if c.op == opConst {
		v, err := x.Eval(sql.NewEmptyContext(), nil) // GMS folds it: exact by construction
		if err != nil {
			return nil, false
		}
		return constant(x.Type(), v)
	}
	switch c.dom {
	case domUint:
		return nil, false // GMS negates unsigned values into wrapped signed ones
	case domInt:
		// GMS widens -MIN of int8..int32 into the next type; in int64 the
		// value is the same. Only a 64-bit operand can hit -MinInt64.
		n := &enode{op: opNeg, dom: domInt, l: c, check64: c.op != opColumn || c.kind == schema.Int64}
		n.key = "n(" + c.key + ")"
		return n, true
	default:
		n := &enode{op: opNeg, dom: c.dom, scale: c.scale, l: c}
		n.key = "n(" + c.key + ")"
		return n, true
	}
}

func compileArith(s *schema.Schema, x *expression.Arithmetic) (*enode, bool) {
	op := x.Op
	if op != "+" && op != "-" && op != "*" {
		return nil, false
	}
	d, ok := typeDomain(x.Type())
	if !ok {
		return nil, false
	}
	l, ok1 := compileNode(s, x.LeftChild)
	r, ok2 := compileNode(s, x.RightChild)
	if !ok1 || !ok2 {
		return nil, false
	}
	if l.op == opConst && r.op == opConst {
		v, err := x.Eval(sql.NewEmptyContext(), nil)
		if err != nil {
			return nil, false
		}
		return constant(x.Type(), v)
	}
	if l, ok1 = coerce(l, x.LeftChild.Type(), d); !ok1 {
		return nil, false
	}
	if r, ok2 = coerce(r, x.RightChild.Type(), d); !ok2 {
		return nil, false
	}
	n := &enode{op: nodeOp(op[0]), dom: d, l: l, r: r}
	if d == domDec {
		switch n.op {
		case opMul:
			n.scale = l.scale + r.scale
		default:
			n.scale = max(l.scale, r.scale)
			n.fl = decimal128.GetScaleMultiplier(int(n.scale - l.scale))
			n.fr = decimal128.GetScaleMultiplier(int(n.scale - r.scale))
		}
		if n.scale > 38 {
			return nil, false
		}
	}
	n.key = "(" + l.key + op + r.key + ")"
	return n, true
}

// unsignedConst is a non-negative signed constant as an unsigned one
// when d is unsigned (MySQL's f + 1 computes 1 exactly in BIGINT
// UNSIGNED); anything else is returned as is.
func unsignedConst(n *enode, d domain) *enode {
	if d != domUint || n.op != opConst || n.dom != domInt || n.i < 0 {
		return n
	}
	return &enode{op: opConst, dom: domUint, u: uint64(n.i), key: fmt.Sprintf("ku%d", n.i)}
}

// coerce converts operand n (of GMS type t) to domain d the way GMS's
// convertLeftRight does, or reports false where the vectorised path could
// not reproduce it.
func coerce(n *enode, t sql.Type, d domain) (*enode, bool) {
	if n.dom == d {
		return n, true
	}
	if n.op == opConst {
		k := &enode{op: opConst, dom: d}
		v := constValue(n)
		return k, k.setConst(t, v)
	}
	if n.op == opColumn {
		// A column loads straight into any domain that holds its values
		// exactly.
		switch {
		case d == domFloat && n.dom != domDec,
			d == domDec && n.dom != domFloat,
			d == domInt && (n.kind == schema.Uint8 || n.kind == schema.Uint16 || n.kind == schema.Uint32):
			c := *n
			c.dom, c.key = d, fmt.Sprintf("c%d/%d", n.field, d)
			return &c, true
		}
		return nil, false
	}
	switch {
	case d == domFloat && (n.dom == domInt || n.dom == domUint),
		d == domDec && (n.dom == domInt || n.dom == domUint):
		return &enode{op: opConvert, dom: d, l: n, key: fmt.Sprintf("v%d(%s)", d, n.key)}, true
	}
	return nil, false // DECIMAL to float, unsigned results to signed
}

// constValue is constant n as the Go value GMS would hold.
func constValue(n *enode) any {
	switch n.dom {
	case domInt:
		return n.i
	case domUint:
		return n.u
	case domFloat:
		return n.f
	}
	return decimal.NewFromBigInt(n.d.BigInt(), -n.scale)
}

// resultType is the column type the expression's vector has, for the
// accumulators.
func (e *Expr) resultType() schema.Type {
	switch e.root.dom {
	case domInt:
		return schema.Type{Kind: schema.Int64}
	case domUint:
		return schema.Type{Kind: schema.Uint64}
	case domFloat:
		return schema.Type{Kind: schema.Float64}
	}
	return schema.Type{Kind: schema.Decimal, Precision: 38, Scale: int(e.root.scale)}
}

// goTyped reports whether the expression's values have one Go type, the
// one its domain names (GMS's unary minus changes int8..int32 types at
// their minimum), so MIN and MAX of it return the row path's types.
func (e *Expr) goTyped() bool {
	return e.root.op != opNeg && e.root.op != opCase && e.root.op != opYear // EXTRACT returns int
}

// program is the expressions of one plan, equal subexpressions shared,
// nodes in evaluation order (operands first).
type program struct {
	nodes []*enode
	index map[string]int
	cols  []int // record column per opColumn node (by node index)
	outs  []int // node index of each added expression
}

// add appends e's nodes, binding columns through colOf, and returns the
// output index of e.
func (p *program) add(e *Expr, colOf func(id int) (int, bool)) (int, bool) {
	if p.index == nil {
		p.index = map[string]int{}
	}
	root, ok := p.addNode(e.root, colOf)
	if !ok {
		return 0, false
	}
	p.outs = append(p.outs, root)
	return len(p.outs) - 1, true
}

func (p *program) addNode(n *enode, colOf func(id int) (int, bool)) (int, bool) {
	if i, ok := p.index[n.key]; ok {
		return i, true
	}
	col := -1
	for _, c := range n.operands() {
		if _, ok := p.addNode(c, colOf); !ok {
			return 0, false
		}
	}
	if n.readsField() {
		var ok bool
		if col, ok = colOf(n.field); !ok {
			return 0, false
		}
	}
	p.nodes = append(p.nodes, n)
	p.cols = append(p.cols, col)
	p.index[n.key] = len(p.nodes) - 1
	return len(p.nodes) - 1, true
}

// vec is one node's values for a batch, indexed by row (only selected
// rows are meaningful); valid is an Arrow validity bitmap, nil when no
// row is NULL.
type vec struct {
	ints  []int64
	uints []uint64
	flts  []float64
	decs  []decimal128.Num
	valid []byte
	// constant operands
	isConst bool
	node    *enode
}

// evaluator holds the per-goroutine buffers of a program.
type evaluator struct {
	p    *program
	vecs []vec
	own  [][]byte // per node: owned value storage
	bufs [][]byte // per node: owned validity storage
	mem  *datafile.BufferPool
}

// newEvaluator returns an evaluator whose value storage comes from mem;
// release gives it back.
func (p *program) newEvaluator(mem *datafile.BufferPool) *evaluator {
	return &evaluator{p: p, vecs: make([]vec, len(p.nodes)), own: make([][]byte, len(p.nodes)), bufs: make([][]byte, len(p.nodes)), mem: mem}
}

// release returns the evaluator's value storage to its allocator.
func (ev *evaluator) release() {
	for i, b := range ev.own {
		if b != nil {
			ev.mem.Free(b)
			ev.own[i] = nil
		}
	}
}

// evaluators lends a run's workers evaluators, reused across files and
// released together when the run ends.
type evaluators struct {
	p    *program
	mem  *datafile.BufferPool
	mu   sync.Mutex
	idle []*evaluator
	all  []*evaluator
}

func (e *evaluators) get() *evaluator {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n := len(e.idle); n > 0 {
		ev := e.idle[n-1]
		e.idle = e.idle[:n-1]
		return ev
	}
	ev := e.p.newEvaluator(e.mem)
	e.all = append(e.all, ev)
	return ev
}

func (e *evaluators) put(ev *evaluator) {
	e.mu.Lock()
	e.idle = append(e.idle, ev)
	e.mu.Unlock()
}

func (e *evaluators) release() {
	for _, ev := range e.all {
		ev.release()
	}
}

// eval computes every node over rows sel of rec.
func (ev *evaluator) eval(rec arrow.Record, sel []int32) error {
	return ev.evalCols(rec.Column, int(rec.NumRows()), sel)
}

// evalCols computes every node over rows sel of the n-row columns col
// gives by record column.
func (ev *evaluator) evalCols(col func(int) arrow.Array, n int, sel []int32) error {
	for i, nd := range ev.p.nodes {
		v := &ev.vecs[i]
		*v = vec{node: nd}
		switch nd.op {
		case opConst:
			v.isConst = true
		case opColumn:
			ev.load(i, v, col(ev.p.cols[i]), n, sel)
		case opCase:
			if err := ev.caseWhen(i, v, n, sel); err != nil {
				return err
			}
		case opYear:
			if err := ev.year(i, v, col(ev.p.cols[i]), n, sel); err != nil {
				return err
			}
		case opConvert:
			ev.convert(i, v, &ev.vecs[ev.p.index[nd.l.key]], n, sel)
		case opNeg:
			if err := ev.negate(i, v, &ev.vecs[ev.p.index[nd.l.key]], n, sel); err != nil {
				return err
			}
		default:
			a, b := &ev.vecs[ev.p.index[nd.l.key]], &ev.vecs[ev.p.index[nd.r.key]]
			v.valid = ev.andValid(i, a.valid, b.valid, n)
			if err := ev.arith(i, v, a, b, n, sel); err != nil {
				return err
			}
		}
	}
	return nil
}

// output is expression k's vector as an Arrow array of n rows; the caller
// releases it before the next eval.
func (ev *evaluator) output(k, n int) arrow.Array {
	v := &ev.vecs[ev.p.outs[k]]
	nd := v.node
	var dt arrow.DataType
	var values []byte
	switch nd.dom {
	case domInt:
		dt, values = arrow.PrimitiveTypes.Int64, arrow.Int64Traits.CastToBytes(v.ints[:n])
	case domUint:
		dt, values = arrow.PrimitiveTypes.Uint64, arrow.Uint64Traits.CastToBytes(v.uints[:n])
	case domFloat:
		dt, values = arrow.PrimitiveTypes.Float64, arrow.Float64Traits.CastToBytes(v.flts[:n])
	default:
		dt = &arrow.Decimal128Type{Precision: 38, Scale: nd.scale}
		values = arrow.Decimal128Traits.CastToBytes(v.decs[:n])
	}
	var validity *memory.Buffer
	nulls := 0
	if v.valid != nil {
		validity = memory.NewBufferBytes(v.valid)
		nulls = array.UnknownNullCount
	}
	data := array.NewData(dt, n, []*memory.Buffer{validity, memory.NewBufferBytes(values)}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// buffer returns node i's value storage, at least size bytes.
func (ev *evaluator) buffer(i, size int) []byte {
	if cap(ev.own[i]) < size {
		if ev.own[i] != nil {
			ev.mem.Free(ev.own[i])
		}
		ev.own[i] = ev.mem.Scratch(size) // written before read
	}
	return ev.own[i][:size]
}

func ints(b []byte) []int64                    { return arrow.Int64Traits.CastFromBytes(b) }
func uints(b []byte) []uint64                  { return arrow.Uint64Traits.CastFromBytes(b) }
func flts(b []byte) []float64                  { return arrow.Float64Traits.CastFromBytes(b) }
func decs(b []byte) []decimal128.Num           { return arrow.Decimal128Traits.CastFromBytes(b) }
func (ev *evaluator) ownInts(i, n int) []int64 { return ints(ev.buffer(i, 8*n)) }
func (ev *evaluator) ownUints(i, n int) []uint64 {
	return uints(ev.buffer(i, 8*n))
}
func (ev *evaluator) ownFlts(i, n int) []float64 { return flts(ev.buffer(i, 8*n)) }
func (ev *evaluator) ownDecs(i, n int) []decimal128.Num {
	return decs(ev.buffer(i, 16*n))
}

// validOf is a's validity bitmap at offset 0, nil without NULLs.
func (ev *evaluator) validOf(i int, a arrow.Array, n int) []byte {
	if a.NullN() == 0 {
		return nil
	}
	bm := a.NullBitmapBytes()
	if bm == nil {
		return ev.validBuf(i, n) // all zero: every row NULL
	}
	if off := a.Data().Offset(); off != 0 {
		dst := ev.validBuf(i, n)
		bitutil.CopyBitmap(bm, off, n, dst, 0)
		return dst
	}
	return bm
}

func (ev *evaluator) validBuf(i, n int) []byte {
	size := bitutil.BytesForBits(int64(n))
	if cap(ev.bufs[i]) < int(size) {
		ev.bufs[i] = make([]byte, size)
	}
	b := ev.bufs[i][:size]
	clear(b)
	return b
}

// andValid is the validity of a binary operation: NULL if either is.
func (ev *evaluator) andValid(i int, a, b []byte, n int) []byte {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	dst := ev.validBuf(i, n)
	for j := range dst {
		dst[j] = a[j] & b[j]
	}
	return dst
}

func isValid(valid []byte, i int32) bool {
	return valid == nil || valid[i>>3]&(1<<(i&7)) != 0
}

// load reads column a into node i's domain.
func (ev *evaluator) load(i int, v *vec, a arrow.Array, n int, sel []int32) {
	v.valid = ev.validOf(i, a, n)
	nd := v.node
	if a.NullN() == a.Len() {
		// Every row NULL (a column missing from the file): any values do.
		b := ev.buffer(i, 16*n)
		clear(b)
		v.ints, v.uints, v.flts, v.decs = ints(b[:8*n]), uints(b[:8*n]), flts(b[:8*n]), decs(b)
		return
	}
	switch nd.dom {
	case domInt:
		if x, ok := a.(*array.Int64); ok {
			v.ints = x.Int64Values()
			return
		}
		v.ints = ev.ownInts(i, n)
		switch x := a.(type) {
		case *array.Int8:
			widen(v.ints, x.Int8Values(), sel)
		case *array.Int16:
			widen(v.ints, x.Int16Values(), sel)
		case *array.Int32:
			widen(v.ints, x.Int32Values(), sel)
		case *array.Uint8:
			widen(v.ints, x.Uint8Values(), sel)
		case *array.Uint16:
			widen(v.ints, x.Uint16Values(), sel)
		case *array.Uint32:
			widen(v.ints, x.Uint32Values(), sel)
		}
	case domUint:
		if x, ok := a.(*array.Uint64); ok {
			v.uints = x.Uint64Values()
			return
		}
		v.uints = ev.ownUints(i, n)
		switch x := a.(type) {
		case *array.Uint8:
			widen(v.uints, x.Uint8Values(), sel)
		case *array.Uint16:
			widen(v.uints, x.Uint16Values(), sel)
		case *array.Uint32:
			widen(v.uints, x.Uint32Values(), sel)
		}
	case domFloat:
		if x, ok := a.(*array.Float64); ok {
			v.flts = x.Float64Values()
			return
		}
		v.flts = ev.ownFlts(i, n)
		switch x := a.(type) {
		case *array.Float32:
			widen(v.flts, x.Float32Values(), sel)
		case *array.Int8:
			widen(v.flts, x.Int8Values(), sel)
		case *array.Int16:
			widen(v.flts, x.Int16Values(), sel)
		case *array.Int32:
			widen(v.flts, x.Int32Values(), sel)
		case *array.Int64:
			widen(v.flts, x.Int64Values(), sel)
		case *array.Uint8:
			widen(v.flts, x.Uint8Values(), sel)
		case *array.Uint16:
			widen(v.flts, x.Uint16Values(), sel)
		case *array.Uint32:
			widen(v.flts, x.Uint32Values(), sel)
		case *array.Uint64:
			widen(v.flts, x.Uint64Values(), sel)
		}
	case domDec:
		if x, ok := a.(*array.Decimal128); ok {
			v.decs = x.Values()
			return
		}
		v.decs = ev.ownDecs(i, n)
		switch x := a.(type) {
		case *array.Int8:
			toDec(v.decs, x.Int8Values(), sel)
		case *array.Int16:
			toDec(v.decs, x.Int16Values(), sel)
		case *array.Int32:
			toDec(v.decs, x.Int32Values(), sel)
		case *array.Int64:
			toDec(v.decs, x.Int64Values(), sel)
		case *array.Uint8:
			toDecU(v.decs, x.Uint8Values(), sel)
		case *array.Uint16:
			toDecU(v.decs, x.Uint16Values(), sel)
		case *array.Uint32:
			toDecU(v.decs, x.Uint32Values(), sel)
		case *array.Uint64:
			toDecU(v.decs, x.Uint64Values(), sel)
		}
	}
}

func widen[D int64 | uint64 | float64, S int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32](dst []D, src []S, sel []int32) {
	for _, i := range sel {
		dst[i] = D(src[i])
	}
}

func toDec[S int8 | int16 | int32 | int64](dst []decimal128.Num, src []S, sel []int32) {
	for _, i := range sel {
		dst[i] = decimal128.FromI64(int64(src[i]))
	}
}

func toDecU[S uint8 | uint16 | uint32 | uint64](dst []decimal128.Num, src []S, sel []int32) {
	for _, i := range sel {
		dst[i] = decimal128.FromU64(uint64(src[i]))
	}
}

// convert is an int or uint operand converted to float or DECIMAL.
func (ev *evaluator) convert(i int, v, a *vec, n int, sel []int32) {
	v.valid = a.valid
	switch v.node.dom {
	case domFloat:
		v.flts = ev.ownFlts(i, n)
		if a.node.dom == domInt {
			widen(v.flts, a.ints, sel)
		} else {
			widen(v.flts, a.uints, sel)
		}
	case domDec:
		v.decs = ev.ownDecs(i, n)
		if a.node.dom == domInt {
			toDec(v.decs, a.ints, sel)
		} else {
			toDecU(v.decs, a.uints, sel)
		}
	}
}

func (ev *evaluator) negate(i int, v, a *vec, n int, sel []int32) error {
	v.valid = a.valid
	switch v.node.dom {
	case domInt:
		v.ints = ev.ownInts(i, n)
		for _, r := range sel {
			x := a.ints[r]
			if v.node.check64 && x == math.MinInt64 && isValid(a.valid, r) {
				return fmt.Errorf("negating BIGINT %d: %w", x, ErrOverflow)
			}
			v.ints[r] = -x
		}
	case domFloat:
		v.flts = ev.ownFlts(i, n)
		for _, r := range sel {
			v.flts[r] = -a.flts[r]
		}
	case domDec:
		v.decs = ev.ownDecs(i, n)
		for _, r := range sel {
			x := a.decs[r]
			if x.HighBits() == math.MinInt64 && x.LowBits() == 0 {
				if isValid(a.valid, r) {
					return fmt.Errorf("negating DECIMAL: %w", ErrOverflow)
				}
				continue
			}
			v.decs[r] = x.Negate()
		}
	}
	return nil
}

// operand is a vector or a constant of one Go type.
type operand[T any] struct {
	v       []T
	c       T
	isConst bool
}

func (ev *evaluator) arith(i int, v, a, b *vec, n int, sel []int32) error {
	nd := v.node
	switch nd.dom {
	case domInt:
		v.ints = ev.ownInts(i, n)
		if nd.checked {
			return checkedN(nd.op, v.ints, operand[int64]{a.ints, a.node.i, a.isConst}, operand[int64]{b.ints, b.node.i, b.isConst}, v.valid, sel, mysqlfix.SignedOp)
		}
		arithN(nd.op, v.ints, operand[int64]{a.ints, a.node.i, a.isConst}, operand[int64]{b.ints, b.node.i, b.isConst}, sel)
	case domUint:
		v.uints = ev.ownUints(i, n)
		if nd.checked {
			return checkedN(nd.op, v.uints, operand[uint64]{a.uints, a.node.u, a.isConst}, operand[uint64]{b.uints, b.node.u, b.isConst}, v.valid, sel, mysqlfix.UnsignedOp)
		}
		arithN(nd.op, v.uints, operand[uint64]{a.uints, a.node.u, a.isConst}, operand[uint64]{b.uints, b.node.u, b.isConst}, sel)
	case domFloat:
		v.flts = ev.ownFlts(i, n)
		arithN(nd.op, v.flts, operand[float64]{a.flts, a.node.f, a.isConst}, operand[float64]{b.flts, b.node.f, b.isConst}, sel)
		if nd.checked {
			return checkFinite(v.flts, v.valid, sel)
		}
	case domDec:
		v.decs = ev.ownDecs(i, n)
		return arithDec(nd, v.decs, operand[decimal128.Num]{a.decs, a.node.d, a.isConst}, operand[decimal128.Num]{b.decs, b.node.d, b.isConst}, v.valid, sel)
	}
	return nil
}

// checkFinite is ErrOverflow when a valid result is ±Inf (MySQL's 1690
// on the row path).
func checkFinite(dst []float64, valid []byte, sel []int32) error {
	for _, r := range sel {
		if math.IsInf(dst[r], 0) && isValid(valid, r) {
			return fmt.Errorf("DOUBLE %v: %w", dst[r], ErrOverflow)
		}
	}
	return nil
}

// arithN is + - * in Go's own (wrapping, IEEE) arithmetic, as GMS's
// plus/minus/mult compute int64, uint64 and float64 operands. Each result
// is stored before the next operation, so nothing fuses into an FMA.
func arithN[T int64 | uint64 | float64](op nodeOp, dst []T, a, b operand[T], sel []int32) {
	switch {
	case a.isConst:
		x := a.c
		switch op {
		case opAdd:
			for _, i := range sel {
				dst[i] = x + b.v[i]
			}
		case opSub:
			for _, i := range sel {
				dst[i] = x - b.v[i]
			}
		case opMul:
			for _, i := range sel {
				dst[i] = x * b.v[i]
			}
		}
	case b.isConst:
		y := b.c
		switch op {
		case opAdd:
			for _, i := range sel {
				dst[i] = a.v[i] + y
			}
		case opSub:
			for _, i := range sel {
				dst[i] = a.v[i] - y
			}
		case opMul:
			for _, i := range sel {
				dst[i] = a.v[i] * y
			}
		}
	default:
		switch op {
		case opAdd:
			for _, i := range sel {
				dst[i] = a.v[i] + b.v[i]
			}
		case opSub:
			for _, i := range sel {
				dst[i] = a.v[i] - b.v[i]
			}
		case opMul:
			for _, i := range sel {
				dst[i] = a.v[i] * b.v[i]
			}
		}
	}
}

// checkedN is MySQL's integer + - * over the selected valid rows: a
// result out of range stops the pipeline with ErrOverflow, and the row
// path reruns the query to report MySQL's error 1690 for it.
func checkedN[T int64 | uint64](op nodeOp, dst []T, a, b operand[T], valid []byte, sel []int32, f func(byte, T, T) (T, bool)) error {
	for _, i := range sel {
		if !isValid(valid, i) {
			continue
		}
		r, ok := f(byte(op), a.at(i), b.at(i))
		if !ok {
			return fmt.Errorf("integer %c: %w", op, ErrOverflow)
		}
		dst[i] = r
	}
	return nil
}

func (o operand[T]) at(i int32) T {
	if o.isConst {
		return o.c
	}
	return o.v[i]
}

// arithDec is exact DECIMAL + - * in 128 bits at the node's scale; NULL
// rows are skipped (their values are not meaningful).
func arithDec(nd *enode, dst []decimal128.Num, a, b operand[decimal128.Num], valid []byte, sel []int32) error {
	if nd.op == opMul {
		switch {
		case a.isConst:
			return mulDecC(dst, b.v, a.c, valid, sel)
		case b.isConst:
			return mulDecC(dst, a.v, b.c, valid, sel)
		}
		for _, i := range sel {
			if valid != nil && valid[i>>3]&(1<<(i&7)) == 0 {
				continue
			}
			x, y := a.v[i], b.v[i]
			if fits64(x) && fits64(y) {
				dst[i] = mul64(int64(x.LowBits()), int64(y.LowBits()))
				continue
			}
			r, ok := mul128(x, y)
			if !ok {
				return fmt.Errorf("DECIMAL multiplication: %w", ErrOverflow)
			}
			dst[i] = r
		}
		return nil
	}
	// Constants are brought to the result's scale once.
	fl, fr := nd.fl, nd.fr
	one := decimal128.FromI64(1)
	var ok bool
	if a.isConst {
		if a.c, ok = mul128(a.c, fl); !ok {
			return fmt.Errorf("DECIMAL constant: %w", ErrOverflow)
		}
		fl = one
	}
	if b.isConst {
		if b.c, ok = mul128(b.c, fr); !ok {
			return fmt.Errorf("DECIMAL constant: %w", ErrOverflow)
		}
		fr = one
	}
	sub := nd.op == opSub
	for _, i := range sel {
		if valid != nil && valid[i>>3]&(1<<(i&7)) == 0 {
			continue
		}
		x, y := a.at(i), b.at(i)
		ok1, ok2 := true, true
		if fl != one {
			x, ok1 = mul128(x, fl)
		}
		if fr != one {
			y, ok2 = mul128(y, fr)
		}
		var r decimal128.Num
		var ok3 bool
		if sub {
			r, ok3 = sub128(x, y)
		} else {
			r, ok3 = add128(x, y)
		}
		if !ok1 || !ok2 || !ok3 {
			return fmt.Errorf("DECIMAL addition: %w", ErrOverflow)
		}
		dst[i] = r
	}
	return nil
}

// mulDecC is v*c over the selected valid rows.
func mulDecC(dst, v []decimal128.Num, c decimal128.Num, valid []byte, sel []int32) error {
	small := fits64(c)
	y := int64(c.LowBits())
	for _, i := range sel {
		if valid != nil && valid[i>>3]&(1<<(i&7)) == 0 {
			continue
		}
		x := v[i]
		if small && fits64(x) {
			dst[i] = mul64(int64(x.LowBits()), y)
			continue
		}
		r, ok := mul128(x, c)
		if !ok {
			return fmt.Errorf("DECIMAL multiplication: %w", ErrOverflow)
		}
		dst[i] = r
	}
	return nil
}

// fits64 reports whether n is an int64.
func fits64(n decimal128.Num) bool { return n.HighBits() == int64(n.LowBits())>>63 }

// mul64 is the exact 128-bit product of two int64s: the unsigned product
// with its high word corrected for the operands' signs.
func mul64(x, y int64) decimal128.Num {
	h, l := bits.Mul64(uint64(x), uint64(y))
	h -= uint64(x>>63) & uint64(y)
	h -= uint64(y>>63) & uint64(x)
	return decimal128.New(int64(h), l)
}

func add128(a, b decimal128.Num) (decimal128.Num, bool) {
	lo, c := bits.Add64(a.LowBits(), b.LowBits(), 0)
	ah, bh := a.HighBits(), b.HighBits()
	hi := ah + bh + int64(c)
	return decimal128.New(hi, lo), (ah^hi)&(bh^hi) >= 0
}

func sub128(a, b decimal128.Num) (decimal128.Num, bool) {
	lo, c := bits.Sub64(a.LowBits(), b.LowBits(), 0)
	ah, bh := a.HighBits(), b.HighBits()
	hi := ah - bh - int64(c)
	return decimal128.New(hi, lo), (ah^bh)&(ah^hi) >= 0
}

// mul128 is a*b, or false when the product needs more than 127 bits.
func mul128(a, b decimal128.Num) (decimal128.Num, bool) {
	alo, ahi, blo, bhi := a.LowBits(), a.HighBits(), b.LowBits(), b.HighBits()
	if ahi == int64(alo)>>63 && bhi == int64(blo)>>63 {
		return mul64(int64(alo), int64(blo)), true // fits in 127 bits
	}
	neg := (ahi < 0) != (bhi < 0)
	uah, ual := abs128(ahi, alo)
	ubh, ubl := abs128(bhi, blo)
	if uah != 0 && ubh != 0 {
		return decimal128.Num{}, false
	}
	if uah == 0 {
		uah, ual, ubh, ubl = ubh, ubl, uah, ual
	}
	// (uah·2^64 + ual) · ubl
	h1, l1 := bits.Mul64(ual, ubl)
	h2, l2 := bits.Mul64(uah, ubl)
	hi, c := bits.Add64(h1, l2, 0)
	if h2 != 0 || c != 0 || hi >= 1<<63 {
		return decimal128.Num{}, false
	}
	r := decimal128.New(int64(hi), l1)
	if neg {
		r = r.Negate()
	}
	return r, true
}

func abs128(hi int64, lo uint64) (uint64, uint64) {
	if hi >= 0 {
		return uint64(hi), lo
	}
	n := decimal128.New(hi, lo).Negate()
	return uint64(n.HighBits()), n.LowBits()
}
