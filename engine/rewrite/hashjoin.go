package rewrite

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/engine/bounded"
	"github.com/lakesql/lakesql/mysqlfix"
)

// hashResidualJoins gives a nested-loop join a hash table on its key
// equalities. GMS v0.20 plans a hash join only when every conjunct of the
// join condition is a column equality between the two sides
// (analyzer.addHashJoins), never for a semi or anti join whose condition
// has anything besides equalities (convertSemiToInnerJoin), and not at
// all when the join tree holds a node its reorderer refuses (a GroupBy
// under a semi-join: memo.ErrUnsupportedReorderNode keeps the tree as
// written). Q13's LEFT JOIN … AND o_comment NOT LIKE …, Q21's EXISTS with
// l_suppkey <> l1.l_suppkey and Q18's joins then re-read their right
// side per left row.
//
// The rule keeps the join node, its type and its whole condition, and
// puts a keyedLookup on its right: the right side runs once into a hash
// table on the key columns, and each left row is offered only the right
// rows whose key could equal its own. The join iterator evaluates the
// whole condition on those rows exactly as before, so the residual and
// the outer/semi/anti semantics are GMS's own. It works only at the top
// scope (no outer row), on joins GMS left as nested loops.
func hashResidualJoins(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if (scope != nil && !scope.IsEmpty()) || !joinRewritesOn(ctx) {
		return n, transform.SameTree, nil
	}
	return gmsNodes(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		j, ok := n.(*plan.JoinNode)
		if !ok || j.ScopeLen != 0 || j.Filter == nil {
			return n, transform.SameTree, nil
		}
		switch j.Op {
		case plan.JoinTypeInner, plan.JoinTypeLeftOuter, plan.JoinTypeSemi, plan.JoinTypeAnti:
		default:
			return n, transform.SameTree, nil
		}
		if _, ok := j.Right().(*keyedLookup); ok {
			return n, transform.SameTree, nil
		}
		lk, rk, kinds, nullable := joinKeys(j)
		if len(kinds) == 0 {
			return n, transform.SameTree, nil
		}
		hl := plan.NewHashLookup(j.Right(), expression.NewTuple(rk...), expression.NewTuple(lk...), j.Op)
		kl := &keyedLookup{hl: hl, kinds: kinds, anti: j.Op.IsExcludeNulls() && nullable, exec: a.ExecBuilder, state: &keyedState{}}
		nj, err := j.WithChildren(j.Left(), kl)
		return nj, transform.NewTree, err
	})
}

// gmsNodes applies f bottom-up to the GMS plan nodes of n, leaving the
// subtrees of other nodes (lakesql's vectorised nodes, which locate parts
// of the plan they replaced by shape) untouched.
func gmsNodes(n sql.Node, f transform.NodeFunc) (sql.Node, transform.TreeIdentity, error) {
	t := reflect.TypeOf(n)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !strings.HasPrefix(t.PkgPath(), "github.com/dolthub/go-mysql-server/") {
		return n, transform.SameTree, nil
	}
	children := n.Children()
	var nc []sql.Node
	for i, c := range children {
		c2, same, err := gmsNodes(c, f)
		if err != nil {
			return n, transform.SameTree, err
		}
		if same == transform.NewTree {
			if nc == nil {
				nc = slices.Clone(children)
			}
			nc[i] = c2
		}
	}
	if nc != nil {
		var err error
		if n, err = n.WithChildren(nc...); err != nil {
			return n, transform.SameTree, err
		}
	}
	out, same, err := f(n)
	if nc != nil {
		same = transform.NewTree
	}
	return out, same, err
}

// joinKeys finds the conjuncts of j's condition that are an equality
// between a column of the left side and a column of the right side of a
// hashable type pair (or such an equality under mysqlfix's IS TRUE
// guard): the left and right key columns and their kinds; nullable when
// some key conjunct is a bare equality, whose NULL an anti join counts.
func joinKeys(j *plan.JoinNode) (left, right []sql.Expression, kinds []keyKind, nullable bool) {
	ln, rn := sideNames(j.Left()), sideNames(j.Right())
	for _, c := range expression.SplitConjunction(j.Filter) {
		guarded := mysqlfix.IsTrueGuard(c)
		if guarded {
			c = c.(*expression.IsTrue).Child
		}
		eq, ok := c.(*expression.Equals)
		if !ok {
			continue
		}
		a, okA := keyColumn(eq.Left())
		b, okB := keyColumn(eq.Right())
		if !okA || !okB {
			continue
		}
		if onSide(b, ln, rn) && onSide(a, rn, ln) {
			a, b = b, a
		} else if !onSide(a, ln, rn) || !onSide(b, rn, ln) {
			continue
		}
		kind, ok := hashKeyKind(a.Type(), b.Type())
		if !ok {
			continue
		}
		left, right, kinds = append(left, a), append(right, b), append(kinds, kind)
		nullable = nullable || !guarded
	}
	return left, right, kinds, nullable
}

// onSide reports whether gf is a column of the side named by mine and
// not of the other.
func onSide(gf *expression.GetField, mine, other map[string]bool) bool {
	t := strings.ToLower(gf.Table())
	return t != "" && mine[t] && !other[t]
}

// keyedLookup is the right input of a join that runs once into a hash
// table; each left row gets the right rows its key may match. Its child
// is a HashLookup holding the key expressions, so that GMS's exec-index
// pass resolves the right keys against the right rows and the left keys
// against the left rows; GMS never executes that HashLookup (its lookup
// converts keys between types and, for anti joins, hands out an
// arbitrary bucket).
type keyedLookup struct {
	hl    *plan.HashLookup
	kinds []keyKind
	// anti: the join rejects a left row when its condition is NULL for
	// some right row (GMS's anti join), so right rows with a NULL key stay
	// candidates for every left row and a left row with a NULL key sees
	// every right row.
	anti  bool
	exec  sql.NodeExecBuilder
	state *keyedState
}

// keyedState is the built hash table of one execution, dropped by
// Dispose at the end of the query.
type keyedState struct {
	mu    sync.Mutex
	table *keyedTable
}

// keyedTable holds the right side's rows by key.
type keyedTable struct {
	byKey  map[string][]sql.Row
	always []sql.Row // rows every left row must see (unkeyed; NULL keys for anti)
	all    []sql.Row
}

var (
	_ sql.ExecSourceRel = (*keyedLookup)(nil)
	_ sql.Disposable    = (*keyedLookup)(nil)
)

func (k *keyedLookup) Resolved() bool       { return k.hl.Resolved() }
func (k *keyedLookup) Schema() sql.Schema   { return k.hl.Schema() }
func (k *keyedLookup) Children() []sql.Node { return []sql.Node{k.hl} }
func (k *keyedLookup) IsReadOnly() bool     { return true }

func (k *keyedLookup) String() string {
	tp := sql.NewTreePrinter()
	_ = tp.WriteNode("KeyedLookup(anti: %t)", k.anti)
	_ = tp.WriteChildren(k.hl.String())
	return tp.String()
}

func (k *keyedLookup) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	hl, ok := children[0].(*plan.HashLookup)
	if !ok {
		return nil, fmt.Errorf("keyed lookup: child is a %T, not a HashLookup", children[0])
	}
	cp := *k
	cp.hl = hl
	return &cp, nil
}

// Dispose drops the hash table at the end of the query.
func (k *keyedLookup) Dispose() {
	k.state.mu.Lock()
	k.state.table = nil
	k.state.mu.Unlock()
}

// RowIter returns the right rows that may match the left row row.
func (k *keyedLookup) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	t, err := k.table(ctx, row)
	if err != nil {
		return nil, err
	}
	key, null, ok, err := k.key(ctx, tupleExprs(k.hl.LeftProbeKey), row)
	if err != nil {
		return nil, err
	}
	switch {
	case !ok, null && k.anti:
		return sql.RowsToRowIter(t.all...), nil
	case null:
		return sql.RowsToRowIter(), nil
	}
	rows := t.byKey[string(key)]
	if len(t.always) > 0 {
		rows = append(append(make([]sql.Row, 0, len(rows)+len(t.always)), rows...), t.always...)
	}
	return sql.RowsToRowIter(rows...), nil
}

// table builds the hash table on first use.
func (k *keyedLookup) table(ctx *sql.Context, row sql.Row) (*keyedTable, error) {
	k.state.mu.Lock()
	defer k.state.mu.Unlock()
	if k.state.table != nil {
		return k.state.table, nil
	}
	iter, err := k.exec.Build(ctx, k.hl.Child, row)
	if err != nil {
		return nil, err
	}
	rows, err := chargedRows(ctx, iter)
	if err != nil {
		return nil, err
	}
	t := &keyedTable{byKey: map[string][]sql.Row{}, all: rows}
	exprs := tupleExprs(k.hl.RightEntryKey)
	for _, r := range rows {
		key, null, ok, err := k.key(ctx, exprs, r)
		switch {
		case err != nil:
			return nil, err
		case !ok, null && k.anti:
			t.always = append(t.always, r)
		case !null:
			t.byKey[string(key)] = append(t.byKey[string(key)], r)
		}
	}
	k.state.table = t
	return t, nil
}

// chargedRows reads iter to the end and closes it, charging every row to
// the query's budget for as long as the query lasts (the table is kept
// until the plan is disposed), and stopping on KILL QUERY.
func chargedRows(ctx *sql.Context, iter sql.RowIter) (rows []sql.Row, err error) {
	defer func() {
		if cerr := iter.Close(ctx); err == nil {
			err = cerr
		}
	}()
	acct := budget.From(ctx)
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		r, err := iter.Next(ctx)
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		if err := acct.Grow("hash join build", bounded.KeyedRowSize(r)); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
}

// key evaluates the key columns on row: null when one is NULL, ok false
// when one is not a value of its kind.
func (k *keyedLookup) key(ctx *sql.Context, exprs []sql.Expression, row sql.Row) (key []byte, null, ok bool, err error) {
	ok = true
	for i, e := range exprs {
		v, err := e.Eval(ctx, row)
		if err != nil {
			return nil, false, false, err
		}
		var isNull, isOK bool
		key, isNull, isOK = appendKey(key, k.kinds[i], v)
		null, ok = null || isNull, ok && isOK
	}
	return key, null, ok, nil
}

// tupleExprs is the elements of a HashLookup key.
func tupleExprs(e sql.Expression) []sql.Expression {
	if t, ok := e.(expression.Tuple); ok {
		return t
	}
	return []sql.Expression{e}
}

// SysVarJoinRewrites turns the join rewrites of this package that change
// GMS's join plans (keyed lookups, OR factoring, semi-join pushdown,
// column pruning below joins) on or off for a session: OFF runs GMS's
// own plan, which is how the tests compare answers with and without
// them.
const SysVarJoinRewrites = "lakesql_join_rewrites"

// joinRewritesOn reads SysVarJoinRewrites (on when unset).
func joinRewritesOn(ctx *sql.Context) bool { return switchOn(ctx, SysVarJoinRewrites) }
