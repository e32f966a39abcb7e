package scan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// JoinFilter is a condition on join tuples over build columns of
// several sides (TPC-H Q07's (n1.n_name = 'FRANCE' AND n2.n_name =
// 'GERMANY') OR (...)): the AND (Or false) or OR of Args, or, without
// Args, whether build column Col holds neither NULL nor 0 (a flag the
// caller computed per build row: 1 where its condition is TRUE). AND and
// OR of "is TRUE" are SQL's: a tuple meets the condition exactly when
// SQL's AND / OR of the conditions is TRUE.
type JoinFilter struct {
	Or   bool
	Args []JoinFilter
	Col  JoinCol
}

// postFilter is a compiled JoinFilter: leaves are record columns.
type postFilter struct {
	or   bool
	args []postFilter
	col  int
}

// SetFilter makes every aggregated tuple meet f, or reports false when a
// leaf is not an integer build column of a side whose columns are read.
func (jp *JoinAggPlan) SetFilter(f JoinFilter) bool {
	pf, ok := jp.compileFilter(f)
	if ok {
		jp.post = &pf
	}
	return ok
}

func (jp *JoinAggPlan) compileFilter(f JoinFilter) (postFilter, bool) {
	if len(f.Args) == 0 {
		col, t, ok := jp.ref(f.Col, len(jp.off))
		switch t.Kind {
		case schema.Int8, schema.Int16, schema.Int32, schema.Int64:
		default:
			ok = false
		}
		return postFilter{col: col}, ok && f.Col.Build && f.Col.Expr == nil
	}
	pf := postFilter{or: f.Or}
	for _, a := range f.Args {
		c, ok := jp.compileFilter(a)
		if !ok {
			return pf, false
		}
		pf.args = append(pf.args, c)
	}
	return pf, true
}

// filterTuples keeps the tuples t that meet jp.post, in order.
func (pr *prober) filterTuples(rec arrow.Record, t *tuples) error {
	leaves := map[int]func(k int) bool{}
	var bind func(f *postFilter) error
	bind = func(f *postFilter) error {
		if len(f.args) == 0 {
			a, sel := pr.column(rec, t, f.col)
			v, ok := intValues(a)
			if !ok {
				return fmt.Errorf("%w: join condition over %s", ErrOverflow, a.DataType())
			}
			leaves[f.col] = func(k int) bool { r := int(sel[k]); return a.IsValid(r) && v(r) != 0 }
		}
		for i := range f.args {
			if err := bind(&f.args[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := bind(pr.jp.post); err != nil {
		return err
	}
	var meets func(f *postFilter, k int) bool
	meets = func(f *postFilter, k int) bool {
		if len(f.args) == 0 {
			return leaves[f.col](k)
		}
		for i := range f.args {
			if meets(&f.args[i], k) == f.or {
				return f.or
			}
		}
		return !f.or
	}
	w := 0
	for k := range t.probe {
		if !meets(pr.jp.post, k) {
			continue
		}
		t.probe[w] = t.probe[k]
		for s := range t.build {
			if len(t.build[s]) > k {
				t.build[s][w] = t.build[s][k]
			}
		}
		w++
	}
	t.probe = t.probe[:w]
	for s := range t.build {
		t.build[s] = t.build[s][:min(w, len(t.build[s]))]
	}
	return nil
}
