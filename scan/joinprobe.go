package scan

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
)

// tuples are join tuples of one batch: a probe row and, for each build
// side joined so far, one of its rows (parallel slices).
type tuples struct {
	probe []int32
	build [][]int32 // by build side
	// scratch for probing the next side with these tuples
	batch []keyVals
	h     []uint64
	match []int32
}

func (t *tuples) reset() {
	t.probe = t.probe[:0]
	for s := range t.build {
		t.build[s] = t.build[s][:0]
	}
}

// prober is one file's probing state.
type prober struct {
	jp  *JoinAggPlan
	p   *AggPlan // jp.agg with the runtime filters
	bs  []*joinBuild
	pt  *partial
	ev  *evaluator
	lv  []tuples // lv[s]: tuples joined with sides 0..s-1
	gid []int32
	// tev evaluates jp.tprog over gathered tuples, rows iota.
	tev  *evaluator
	iota []int32
	// local maps a group of the group side's gtab to the partial's group
	// (-1: none yet): a partial holds only groups some tuple falls in,
	// as the row path's GroupBy does.
	local []int32
	// cut, in a partitioned run's pass, drops the tuples of other
	// partitions at its sides.
	cut *joinCut
}

func (jp *JoinAggPlan) newProber(ctx context.Context, p *AggPlan, bs []*joinBuild, ev *evaluator) *prober {
	pr := &prober{jp: jp, p: p, bs: bs, ev: ev, lv: make([]tuples, len(bs)+1)}
	for s := range pr.lv {
		pr.lv[s].build = make([][]int32, len(bs))
		if s < len(bs) {
			pr.lv[s].batch = make([]keyVals, len(jp.stages[s].keys))
		}
	}
	pr.pt = p.newPartial(ctx)
	if len(jp.tprog.nodes) > 0 {
		pr.tev = jp.tprog.newEvaluator(ev.mem)
	}
	switch {
	case len(p.groupBy) == 0:
		pr.pt.group0()
	case jp.groupSide >= 0:
		pr.local = make([]int32, bs[jp.groupSide].gtab.n)
		for i := range pr.local {
			pr.local[i] = -1
		}
	}
	return pr
}

// column is record column c of tuples t: its array and the row of it
// each tuple holds.
func (pr *prober) column(rec arrow.Record, t *tuples, c int) (arrow.Array, []int32) {
	s, j := pr.jp.side(c)
	if s < 0 {
		return rec.Column(c), t.probe
	}
	return pr.bs[s].cols[j], t.build[s]
}

// probe passes the tuples lv[s] of rec through build side s and on,
// aggregating the tuples that come out of the last side.
func (pr *prober) probe(rec arrow.Record, s int) error {
	in := &pr.lv[s]
	if len(in.probe) == 0 {
		return nil
	}
	if s == len(pr.bs) {
		if pr.jp.post != nil {
			if err := pr.filterTuples(rec, in); err != nil || len(in.probe) == 0 {
				return err
			}
		}
		return pr.flush(rec, in)
	}
	st, b := &pr.jp.stages[s], pr.bs[s]
	in.h = sized(in.h, len(in.probe))
	for k := range in.h {
		in.h[k] = 0x9E3779B97F4A7C15
	}
	for k, c := range st.on {
		a, sel := pr.column(rec, in, c)
		extractKeys(&in.batch[k], a, sel, b.keys.seed)
		hashKeys(&in.batch[k], b.keys.forms[k], in.h)
	}
	for k := range in.h {
		in.h[k] = fmix64(in.h[k])
	}
	// NULL keys find nothing: the table holds no NULL key.
	in.match = b.keys.find(in.batch, in.h, in.match[:0])
	out := &pr.lv[s+1]
	out.reset()
	meets, err := pr.residuals(rec, in, s)
	if err != nil {
		return err
	}
	// from is the first row from r on in its key's chain that meets the
	// residuals, -1: none.
	from := func(t int, r int32) int32 {
		for meets != nil && r >= 0 && !meets(t, r) {
			r = b.next[r]
		}
		return r
	}
	cut := pr.cut != nil && slices.Contains(pr.cut.sides, s)
	for t, g := range in.match {
		if cut && !pr.cut.holds(in, t) {
			continue // another pass joins it
		}
		r := int32(-1) // an anti side's row: none
		switch st.kind {
		case JoinInner, JoinSemi:
			if g < 0 {
				continue
			}
			if r = from(t, b.first[g]); r < 0 {
				continue
			}
		case JoinAnti:
			if g >= 0 && from(t, b.first[g]) >= 0 {
				continue
			}
		case JoinAntiNulls:
			if b.keys.n > 0 && (g >= 0 || in.batch[0].isNull(t)) {
				continue
			}
		}
		for ; ; r = from(t, b.next[r]) {
			out.probe = append(out.probe, in.probe[t])
			for j := range s {
				out.build[j] = append(out.build[j], in.build[j][t])
			}
			out.build[s] = append(out.build[s], r)
			if len(out.probe) >= maxPairs {
				if err := pr.probe(rec, s+1); err != nil {
					return err
				}
				out.reset()
			}
			if st.kind != JoinInner || from(t, b.next[r]) < 0 {
				break
			}
		}
	}
	err = pr.probe(rec, s+1)
	out.reset()
	return err
}

// residuals is whether tuple t of in and row r of build side s meet the
// side's residual conditions (nil: it has none).
func (pr *prober) residuals(rec arrow.Record, in *tuples, s int) (func(t int, r int32) bool, error) {
	rs := pr.jp.stages[s].residuals
	if len(rs) == 0 {
		return nil, nil
	}
	type check struct {
		cmp func(i, j int) (int, bool)
		sel []int32
		op  Op
		not bool
	}
	checks := make([]check, len(rs))
	for k, r := range rs {
		other, sel := pr.column(rec, in, r.other)
		cmp, ok := comparer(pr.bs[s].cols[r.build], other)
		if !ok { // storage the compiled types did not promise: the row path decides
			return nil, fmt.Errorf("%w: join condition over %s and %s", ErrOverflow, pr.bs[s].cols[r.build].DataType(), other.DataType())
		}
		checks[k] = check{cmp: cmp, sel: sel, op: r.op, not: r.not}
	}
	return func(t int, r int32) bool {
		for _, c := range checks {
			v, ok := c.cmp(int(r), int(c.sel[t]))
			if !ok || match(c.op, v) == c.not {
				return false
			}
		}
		return true
	}, nil
}

// flush aggregates the tuples t.
func (pr *prober) flush(rec arrow.Record, t *tuples) error {
	p := pr.p
	if len(pr.jp.tprog.nodes) > 0 { // before assign: group keys may be its outputs
		if err := pr.evalTuples(rec, t); err != nil {
			return err
		}
	}
	pr.gid = pr.assign(rec, t)
	if len(p.prog.nodes) > 0 {
		if err := pr.ev.eval(rec, t.probe); err != nil {
			return err
		}
	}
	n := int(rec.NumRows())
	for j, a := range pr.pt.accs {
		switch c := p.aggCol[j]; {
		case pr.jp.tupleExpr[j] >= 0:
			col := pr.tev.output(pr.jp.tupleExpr[j], len(t.probe))
			a.update(col, pr.iota, pr.gid)
			col.Release()
		case c >= 0:
			col, sel := pr.column(rec, t, c)
			a.update(col, sel, pr.gid)
		case p.aggExpr[j] >= 0:
			col := pr.ev.output(p.aggExpr[j], n)
			a.update(col, t.probe, pr.gid)
			col.Release()
		default: // COUNT(*)
			a.update(nil, t.probe, pr.gid)
		}
	}
	return nil
}

// assign returns the group of every tuple, creating groups.
func (pr *prober) assign(rec arrow.Record, t *tuples) []int32 {
	p, pt := pr.p, pr.pt
	gid := pr.gid[:0]
	switch {
	case len(p.groupBy) == 0:
		for range t.probe {
			gid = append(gid, 0)
		}
		return gid
	case pr.jp.groupSide >= 0:
		return pr.assignBuilt(gid, t.build[pr.jp.groupSide])
	}
	h := sized(pt.hbuf, len(t.probe))
	pt.hbuf = h
	for k := range h {
		h[k] = 0x9E3779B97F4A7C15
	}
	for k, c := range p.groupBy {
		kv := &pt.tab.batch[k]
		if c < 0 { // computed by the tuple program
			a := pr.tev.output(pr.jp.keyExpr[k], len(t.probe))
			extractKeys(kv, a, pr.iota, pt.tab.seed)
			a.Release()
		} else {
			a, sel := pr.column(rec, t, c)
			extractKeys(kv, a, sel, pt.tab.seed)
		}
		hashKeys(kv, pt.tab.forms[k], h)
	}
	for k := range h {
		h[k] = fmix64(h[k])
	}
	return pt.groups(h, gid)
}

// assignBuilt appends the group of every tuple from its row rows[k] of
// the group side, copying groups into the partial when first met. The
// partial's table is only merged from (mergeKeys reads keys and hashes),
// so its slots stay empty.
func (pr *prober) assignBuilt(gid []int32, rows []int32) []int32 {
	b := pr.bs[pr.jp.groupSide]
	pt, gt := pr.pt, b.gtab
	for _, r := range rows {
		g := b.groups[r]
		l := pr.local[g]
		if l < 0 {
			l = pt.tab.add(gt.keys, int(g), gt.hash[g])
			pr.local[g] = l
			for _, acc := range pt.accs {
				acc.grow(pt.tab.n)
			}
			pt.charged(int(l))
		}
		gid = append(gid, l)
	}
	return gid
}
