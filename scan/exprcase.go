package scan

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// caseMaxScale is the scale of GMS's CASE over DECIMAL branches
// (DECIMAL(65,10), combinedCaseBranchType): a value of a larger scale
// would be rounded to it, so such a CASE stays on the row path.
const caseMaxScale = 10

// compileCase compiles a searched CASE (CASE WHEN c THEN v ... ELSE e
// END) whose conditions are integer columns, true when not NULL and not
// zero (as sql.IsTrue reads them: the join aggregation stores a build
// side's condition, evaluated by GMS per build row, as a 0/1 column),
// and whose values compile. Each value is converted to the CASE's type
// as Case.Eval converts it.
func compileCase(s *schema.Schema, x *expression.Case) (*enode, bool) {
	t := x.Type()
	d, ok := typeDomain(t)
	if !ok || x.Expr != nil || x.Else == nil || len(x.Branches) == 0 || types.IsFloat(t) && t != types.Float64 {
		return nil, false
	}
	n := &enode{op: opCase, dom: d}
	keys := make([]string, 0, 2*len(x.Branches)+1)
	add := func(v *enode) {
		n.args = append(n.args, v)
		keys = append(keys, v.key)
	}
	for _, b := range x.Branches {
		c, ok := compileNode(s, b.Cond)
		if !ok || c.op != opColumn || c.dom != domInt {
			return nil, false
		}
		add(c)
		v, ok := caseValue(s, b.Value, d)
		if !ok {
			return nil, false
		}
		add(v)
	}
	v, ok := caseValue(s, x.Else, d)
	if !ok {
		return nil, false
	}
	add(v)
	if d == domDec {
		for k := 1; k < len(n.args); k += 2 {
			n.scale = max(n.scale, n.args[k].scale)
		}
		n.scale = max(n.scale, n.args[len(n.args)-1].scale)
		if n.scale > caseMaxScale {
			return nil, false
		}
		n.facs = make([]decimal128.Num, len(n.args))
		for k, a := range n.args {
			n.facs[k] = decimal128.GetScaleMultiplier(int(n.scale - a.scale))
		}
	}
	n.key = "w(" + strings.Join(keys, ",") + ")"
	return n, true
}

// caseValue compiles a branch value in the CASE's domain d.
func caseValue(s *schema.Schema, e sql.Expression, d domain) (*enode, bool) {
	v, ok := compileNode(s, e)
	if !ok {
		return nil, false
	}
	v = unsignedConst(v, d)
	return coerce(v, e.Type(), d)
}

// caseWhen computes a CASE node: per row the value of the first branch
// whose condition holds, else the ELSE value; NULL where that is.
func (ev *evaluator) caseWhen(i int, v *vec, n int, sel []int32) error {
	nd := v.node
	args := make([]*vec, len(nd.args))
	for k, a := range nd.args {
		args[k] = &ev.vecs[ev.p.index[a.key]]
	}
	valid := ev.validBuf(i, n)
	switch nd.dom {
	case domInt:
		v.ints = ev.ownInts(i, n)
	case domUint:
		v.uints = ev.ownUints(i, n)
	case domFloat:
		v.flts = ev.ownFlts(i, n)
	case domDec:
		v.decs = ev.ownDecs(i, n)
	}
	last := len(args) - 1
	one := decimal128.FromI64(1)
	for _, r := range sel {
		pick := last
		for b := 0; b < last; b += 2 {
			if c := args[b]; isValid(c.valid, r) && c.ints[r] != 0 {
				pick = b + 1
				break
			}
		}
		a := args[pick]
		if !a.isConst && !isValid(a.valid, r) {
			continue
		}
		bitutil.SetBit(valid, int(r))
		switch nd.dom {
		case domInt:
			v.ints[r] = operand[int64]{a.ints, a.node.i, a.isConst}.at(r)
		case domUint:
			v.uints[r] = operand[uint64]{a.uints, a.node.u, a.isConst}.at(r)
		case domFloat:
			v.flts[r] = operand[float64]{a.flts, a.node.f, a.isConst}.at(r)
		case domDec:
			x := operand[decimal128.Num]{a.decs, a.node.d, a.isConst}.at(r)
			if f := nd.facs[pick]; f != one {
				var ok bool
				if x, ok = mul128(x, f); !ok {
					return fmt.Errorf("DECIMAL CASE value: %w", ErrOverflow)
				}
			}
			v.decs[r] = x
		}
	}
	v.valid = valid
	return nil
}
