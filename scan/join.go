package scan

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// JoinCol is a column of an inner join of a table's files (the probe
// side) with rows held in memory (the build sides).
type JoinCol struct {
	Build bool // a build column, else a probe-table field
	Side  int  // build: the build side (JoinAggPlan's builds, in order)
	ID    int  // build: column of the side's record; probe: field id
	// Expr, for a group key only, computes the key instead: an
	// expression over TupleSchema (EXTRACT(YEAR FROM l_shipdate)).
	Expr *Expr
}

// JoinBuild is one build side of a join aggregation: the types of its
// record's columns and its join keys. Key k is build column Keys[k],
// equal to On[k]: a probe field or a column of an earlier build side.
// Its strings must compare byte-wise (the caller checks collations).
type JoinBuild struct {
	Types []schema.Type
	Keys  []int
	On    []JoinCol
	Kind  JoinKind
	// Residuals are further conditions a build row must meet to match
	// (not with JoinAntiNulls).
	Residuals []JoinResidual
}

// JoinResidual is a comparison of a build side's column with a probe
// field or a column of an earlier side: Build Op Other, negated by Not
// (<> is Not with OpEq). NULL never meets it.
type JoinResidual struct {
	Build int
	Other JoinCol
	Op    Op
	Not   bool
}

// JoinKind is how a build side joins: how many tuples a tuple becomes.
type JoinKind int

const (
	// JoinInner: one tuple per build row whose keys equal the tuple's.
	JoinInner JoinKind = iota
	// JoinSemi: the tuple once, with the first such build row, if there
	// is one (EXISTS, IN, or an inner join with distinct build keys).
	JoinSemi
	// JoinAnti: the tuple if no build row's keys equal its keys (NOT
	// EXISTS: a NULL key equals nothing). Its columns cannot be read.
	JoinAnti
	// JoinAntiNulls: NOT IN over one key: the tuple if the build side is
	// empty, or if its key is not NULL, no build key is NULL and none
	// equals it. Its columns cannot be read.
	JoinAntiNulls
)

// JoinAggSpec is one aggregate of a join aggregation.
type JoinAggSpec struct {
	Kind AggKind
	Col  JoinCol // unused for AggCountStar or with Expr
	// Expr is aggregated instead of Col: an expression of probe columns
	// (CompileExpr over the probe's schema) or of any side's columns
	// (over TupleSchema).
	Expr *Expr
	// Scale is AggSpec.Scale.
	Scale int32
}

// JoinAggPlan is a compiled aggregation over a chain of inner
// equi-joins: filter conjuncts on the probe table, then for each build
// side in turn equalities of its columns with probe fields or columns
// of earlier build sides, and group keys and aggregates over columns of
// any side.
//
// Its AggPlan reads the probe fields (record columns 0..nProbe-1) and
// addresses column j of build side s as record column off[s]+j, so the
// accumulators and group tables of the single-table path serve every
// side.
type JoinAggPlan struct {
	agg    *AggPlan
	nProbe int
	off    []int // by build side: its first record column
	stages []joinStage
	// groupSide is the build side holding every group key (-1: none, or
	// no GROUP BY): its rows are grouped once, at build time.
	groupSide int
	// tprog computes the aggregated expressions that read build columns,
	// over the tuples' gathered values; tupleExpr is its output per
	// aggregate (-1: none).
	tprog     program
	tupleExpr []int
	keyExpr   []int // by group key: its tprog output (-1: a column)
	// post, if set, is a condition every aggregated tuple meets.
	post *postFilter
}

// joinStage is the probe of one build side.
type joinStage struct {
	keys     []int // build columns of the keys
	on       []int // record columns they equal
	keyTypes []schema.Type
	// probeKeys marks keys equal to a probe field: their build values'
	// range prunes the probe scan (runtime filters).
	probeKeys []bool
	kind      JoinKind
	residuals []residual
}

// residual is a compiled JoinResidual: the build column, the record
// column it is compared with.
type residual struct {
	build, other int
	op           Op
	not          bool
}

// maxPairs bounds the join tuples (probe row, build rows) handed to the
// next build side or aggregated at once: a build key matching many rows
// expands a batch that much.
const maxPairs = 1 << 13

// CompileJoinAggregate builds the plan, or reports false when a part is
// outside what the vectorised path computes exactly as GMS's row path
// would. filters apply to the probe table: conjuncts as CompileAggregate
// takes them, and comparisons of two columns.
func CompileJoinAggregate(probe *schema.Schema, builds []JoinBuild, filters []sql.Expression, groupBy []JoinCol, aggs []JoinAggSpec) (*JoinAggPlan, bool) {
	if len(builds) == 0 {
		return nil, false
	}
	specs := make([]AggSpec, len(aggs))
	for j, a := range aggs {
		specs[j] = AggSpec{Kind: a.Kind, Expr: a.Expr, Scale: a.Scale}
	}
	p := &AggPlan{schema: probe, aggs: specs}
	jp := &JoinAggPlan{agg: p, groupSide: -1}
	if !p.addFiltersWith(filters, true) || !jp.addProbeFields(builds, groupBy, aggs) {
		return nil, false
	}
	jp.nProbe = len(p.fields)
	for _, b := range builds {
		jp.off = append(jp.off, len(p.types))
		p.types = append(p.types, b.Types...)
	}
	for s, b := range builds {
		st, ok := jp.stage(s, b)
		if !ok {
			return nil, false
		}
		jp.stages = append(jp.stages, st)
	}
	if !jp.addGroupBy(groupBy) || !jp.addAggs(aggs) || !jp.addTupleExprs(aggs) || len(p.fields) != jp.nProbe {
		return nil, false // a probe field read after the build columns' places were set
	}
	p.seed = maphash.MakeSeed()
	return jp, true
}

// addProbeFields adds every probe field the plan reads (build columns
// follow them in the record) and compiles the aggregated expressions.
func (jp *JoinAggPlan) addProbeFields(builds []JoinBuild, groupBy []JoinCol, aggs []JoinAggSpec) bool {
	p := jp.agg
	probeField := func(c JoinCol) bool {
		if c.Build {
			return true
		}
		_, t, ok := p.column(c.ID)
		col, _ := p.schema.ByID(c.ID)
		return ok && (t.Kind != schema.String || binaryCollation(col))
	}
	for _, b := range builds {
		if len(b.Keys) == 0 || len(b.Keys) != len(b.On) {
			return false
		}
		for _, c := range b.On {
			if !probeField(c) {
				return false
			}
		}
		for _, r := range b.Residuals {
			if !probeField(r.Other) {
				return false
			}
		}
	}
	for _, g := range groupBy {
		if g.Expr != nil && !jp.addExprFields(g.Expr) || g.Expr == nil && !probeField(g) {
			return false
		}
	}
	bind := func(id int) (int, bool) {
		col, _, ok := p.column(id)
		return col, ok
	}
	p.aggExpr = make([]int, len(aggs))
	for j, a := range aggs {
		p.aggExpr[j] = -1
		switch {
		case a.Kind == AggCountStar:
		case a.Expr != nil && a.Expr.readsBuild():
			if !jp.addTupleFields(a) {
				return false
			}
		case a.Expr != nil:
			k, ok := p.prog.add(a.Expr, bind)
			if !ok || !supportsAgg(a.Kind, a.Expr.resultType()) || (a.Kind == AggMin || a.Kind == AggMax) && !a.Expr.goTyped() {
				return false
			}
			p.aggExpr[j] = k
		case !probeField(a.Col):
			return false
		}
	}
	return true
}

// ref is the record column of c and its type; build columns of sides
// before side only.
func (jp *JoinAggPlan) ref(c JoinCol, side int) (int, schema.Type, bool) {
	if !c.Build {
		return jp.agg.column(c.ID)
	}
	if c.Side < 0 || c.Side >= side || c.Side >= len(jp.off) || jp.stages[c.Side].kind >= JoinAnti {
		return 0, schema.Type{}, false
	}
	types := jp.agg.types[jp.off[c.Side]:]
	if c.Side+1 < len(jp.off) {
		types = jp.agg.types[jp.off[c.Side]:jp.off[c.Side+1]]
	}
	if c.ID < 0 || c.ID >= len(types) {
		return 0, schema.Type{}, false
	}
	return jp.off[c.Side] + c.ID, types[c.ID], true
}

// stage compiles the keys of build side s.
func (jp *JoinAggPlan) stage(s int, b JoinBuild) (joinStage, bool) {
	st := joinStage{kind: b.Kind}
	if b.Kind == JoinAntiNulls && len(b.Keys) != 1 || b.Kind < JoinInner || b.Kind > JoinAntiNulls {
		return st, false
	}
	for k, c := range b.On {
		col, t, ok := jp.ref(c, s)
		if !ok || b.Keys[k] < 0 || b.Keys[k] >= len(b.Types) || !joinKeysMatch(t, b.Types[b.Keys[k]]) {
			return st, false
		}
		st.keys = append(st.keys, b.Keys[k])
		st.on = append(st.on, col)
		st.keyTypes = append(st.keyTypes, t)
		st.probeKeys = append(st.probeKeys, !c.Build)
	}
	if len(b.Residuals) > 0 && b.Kind == JoinAntiNulls {
		return st, false
	}
	for _, r := range b.Residuals {
		col, t, ok := jp.ref(r.Other, s) // a probe field: added by addProbeFields
		if !ok || r.Build < 0 || r.Build >= len(b.Types) || !comparableTypes(b.Types[r.Build], t) {
			return st, false
		}
		if _, ok := compileOp(r.Op); !ok {
			return st, false
		}
		st.residuals = append(st.residuals, residual{build: r.Build, other: col, op: r.Op, not: r.Not})
	}
	return st, true
}

// compileOp accepts the comparisons a residual makes.
func compileOp(op Op) (Op, bool) {
	switch op {
	case OpEq, OpLt, OpLe, OpGt, OpGe:
		return op, true
	}
	return op, false
}

func (jp *JoinAggPlan) addGroupBy(groupBy []JoinCol) bool {
	p := jp.agg
	sides := map[int]bool{}
	for _, g := range groupBy {
		if g.Expr != nil {
			k, ok := jp.tprog.add(g.Expr, jp.tupleBind())
			t := g.Expr.resultType()
			if !ok || !groupable(t) {
				return false
			}
			jp.keyExpr = append(jp.keyExpr, k)
			p.groupBy = append(p.groupBy, -1)
			p.keyTypes = append(p.keyTypes, t)
			sides[-1], sides[-2] = true, true // no one side holds every key
			continue
		}
		jp.keyExpr = append(jp.keyExpr, -1)
		col, t, ok := jp.ref(g, len(jp.off))
		if !ok || !groupable(t) {
			return false
		}
		p.groupBy = append(p.groupBy, col)
		p.keyTypes = append(p.keyTypes, t)
		side := -1
		if g.Build {
			side = g.Side
		}
		sides[side] = true
	}
	if len(sides) == 1 {
		for s := range sides {
			jp.groupSide = s
		}
	}
	return true
}

func (jp *JoinAggPlan) addAggs(aggs []JoinAggSpec) bool {
	p := jp.agg
	for _, a := range aggs {
		if a.Kind == AggCountStar || a.Expr != nil {
			p.aggCol = append(p.aggCol, -1)
			continue
		}
		col, t, ok := jp.ref(a.Col, len(jp.off))
		if !ok || !supportsAgg(a.Kind, t) {
			return false
		}
		p.aggCol = append(p.aggCol, col)
	}
	return true
}

// side is the build side of record column c and its column there (-1:
// a probe field).
func (jp *JoinAggPlan) side(c int) (int, int) {
	if c < jp.nProbe {
		return -1, c
	}
	s := len(jp.off) - 1
	for jp.off[s] > c {
		s--
	}
	return s, c - jp.off[s]
}

// joinKeysMatch reports whether equality of a probe key of type a and a
// build key of type b is the equality of their canonical keys (keyVals):
// integers of any width (but 64-bit unsigned only with itself: its
// canonical form is the int64 bits), dates, timestamps, strings, DECIMALs
// of one scale. Anything MySQL compares after a conversion is refused.
func joinKeysMatch(a, b schema.Type) bool {
	// comparableTypes refuses BIGINT UNSIGNED everywhere; as a key it
	// matches itself, whose canonical form is the int64 bits.
	if a.Kind == schema.Uint64 {
		return b.Kind == schema.Uint64
	}
	return comparableTypes(a, b)
}

// Builds is the number of build sides Run takes.
func (jp *JoinAggPlan) Builds() int { return len(jp.stages) }

// Run executes the plan: builds[s] holds the columns of build side s,
// one row per build row. It prunes and reads the probe table's files in
// parallel like AggPlan.Run, the range of each build side's keys that
// equal probe fields pruning them too (runtime filters), and aggregates,
// per selected probe row, one tuple per combination of build rows whose
// keys equal it (none when a key is NULL), passing the probe row through
// each side's hash table in turn. Result rows are the group keys then
// the aggregates.
func (jp *JoinAggPlan) Run(ctx context.Context, in AggInput, builds []arrow.Record) ([]sql.Row, Stats, error) {
	if len(builds) != len(jp.stages) {
		return nil, Stats{}, fmt.Errorf("join has %d build sides, want %d", len(builds), len(jp.stages))
	}
	out := jp.newOutput(ctx)
	defer out.charge.Close()
	st, err := jp.pass(ctx, in, builds, nil, out)
	if err != nil {
		return nil, st, err
	}
	return out.rows(), st, nil
}

// newOutput is the partial every pass of a run merges into.
func (jp *JoinAggPlan) newOutput(ctx context.Context) *partial {
	out := jp.agg.newPartial(ctx)
	if len(jp.agg.groupBy) == 0 {
		out.group0()
	}
	return out
}

// BuildIndexBytes is what the index of one build row holds: key tables,
// chains and groups.
const BuildIndexBytes = 40

// pass probes in's files through the build sides and aggregates into
// out; cut, if set, lets on at its sides only the tuples of its hash
// partition (builds holds that partition of those sides).
func (jp *JoinAggPlan) pass(ctx context.Context, in AggInput, builds []arrow.Record, cut *joinCut, out *partial) (Stats, error) {
	// The build indexes (the build records are their caller's to charge).
	charge := budget.From(ctx).NewCharge("hash join build")
	defer charge.Close()
	bs := make([]*joinBuild, len(builds))
	empty := false
	for s, rec := range builds {
		if err := charge.Grow(BuildIndexBytes * rec.NumRows()); err != nil {
			return Stats{}, err
		}
		b, err := jp.prepare(s, rec)
		if err != nil {
			return Stats{}, err
		}
		bs[s] = b
		switch k := jp.stages[s].kind; {
		case k <= JoinSemi:
			empty = empty || b.keys.n == 0
		case k == JoinAntiNulls:
			empty = empty || b.nullKey
		}
	}
	agg, match := jp.runtimeFilters(bs)
	if empty || !match { // no probe row can match: read nothing
		in.Files = nil
	}
	return agg.runInto(ctx, in, func(ctx context.Context, src source, f manifest.DataFile, rgs []int, ev *evaluator) (*partial, Stats, error) {
		return jp.runFile(ctx, agg, src, f, rgs, ev, bs, cut)
	}, out)
}

// joinBuild is a build side indexed by join key.
type joinBuild struct {
	cols  []arrow.Array
	keys  groupTable // distinct non-NULL key tuples
	first []int32    // by key: first build row with it
	next  []int32    // by build row: next row with its key, -1: none
	rows  []int32    // the rows with no NULL key
	// nullKey: some build row has a NULL key (NOT IN rejects every
	// tuple then).
	nullKey bool
	// groups, when every group key is a column of this side, is each
	// build row's group in gtab, so probing hashes no group keys.
	groups []int32
	gtab   *groupTable
}

func (jp *JoinAggPlan) prepare(s int, build arrow.Record) (*joinBuild, error) {
	st := jp.stages[s]
	end := len(jp.agg.types)
	if s+1 < len(jp.off) {
		end = jp.off[s+1]
	}
	if int(build.NumCols()) != end-jp.off[s] {
		return nil, fmt.Errorf("join build side %d has %d columns, want %d", s, build.NumCols(), end-jp.off[s])
	}
	n := int(build.NumRows())
	b := &joinBuild{cols: build.Columns(), next: make([]int32, n)}
	b.keys.init(st.keyTypes, jp.agg.seed)
	keyCols := make([]arrow.Array, len(st.keys))
	for k, c := range st.keys {
		keyCols[k] = b.cols[c]
	}
	sel := nonNullRows(keyCols, rowsUpTo(n))
	b.rows, b.nullKey = sel, len(sel) < n
	h := make([]uint64, len(sel))
	b.keys.hashRows(keyCols, sel, h)
	kid := b.keys.findOrAdd(b.keys.batch, h, make([]int32, 0, len(sel)))
	b.first = make([]int32, b.keys.n)
	last := make([]int32, b.keys.n)
	for i := range b.first {
		b.first[i] = -1
	}
	for k, r := range sel { // chains in build order, as the row path meets them
		b.next[r] = -1
		if g := kid[k]; b.first[g] < 0 {
			b.first[g] = r
		} else {
			b.next[last[g]] = r
		}
		last[kid[k]] = r
	}
	if jp.groupSide == s {
		jp.groupBuild(b, n)
	}
	return b, nil
}

// groupBuild assigns the build rows their groups (every group key is a
// column of this side).
func (jp *JoinAggPlan) groupBuild(b *joinBuild, n int) {
	p := jp.agg
	cols := make([]arrow.Array, len(p.groupBy))
	for k, c := range p.groupBy {
		_, j := jp.side(c)
		cols[k] = b.cols[j]
	}
	b.gtab = &groupTable{}
	b.gtab.init(p.keyTypes, p.seed)
	sel := rowsUpTo(n)
	h := make([]uint64, n)
	b.gtab.hashRows(cols, sel, h)
	b.groups = b.gtab.findOrAdd(b.gtab.batch, h, make([]int32, 0, n))
}

func rowsUpTo(n int) []int32 {
	sel := make([]int32, n)
	for i := range sel {
		sel[i] = int32(i)
	}
	return sel
}

// nonNullRows keeps the rows of sel where no column of cols is NULL:
// NULL never equals anything.
func nonNullRows(cols []arrow.Array, sel []int32) []int32 {
	for _, a := range cols {
		if a.NullN() == 0 {
			continue
		}
		out := sel[:0]
		for _, i := range sel {
			if !a.IsNull(int(i)) {
				out = append(out, i)
			}
		}
		sel = out
	}
	return sel
}

// find appends to out the stored group of each row of batch (hashes h),
// -1 for rows without one; it never adds groups.
func (t *groupTable) find(batch []keyVals, h []uint64, out []int32) []int32 {
	mask := uint64(len(t.slots) - 1)
	for k, hk := range h {
		g := int32(-1)
		for s := hk & mask; t.slots[s] != 0; s = (s + 1) & mask {
			if e := t.slots[s] - 1; t.hash[e] == hk && t.eq(batch, k, e) {
				g = e
				break
			}
		}
		out = append(out, g)
	}
	return out
}

func (jp *JoinAggPlan) runFile(ctx context.Context, p *AggPlan, src source, f manifest.DataFile, rgs []int, ev *evaluator, bs []*joinBuild, cut *joinCut) (*partial, Stats, error) {
	r, st, err := p.openPruned(ctx, src, f, datafile.ReadOptions{RowGroups: rgs})
	if err != nil {
		return nil, Stats{}, err
	}
	defer r.Close()
	pr := jp.newProber(ctx, p, bs, ev)
	pr.cut = cut
	defer pr.releaseTuples()
	var sel []int32
	for {
		if err := ctx.Err(); err != nil { // KILL QUERY
			pr.pt.charge.Close()
			return nil, Stats{}, err
		}
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return pr.pt, st, nil
		}
		if err != nil {
			return nil, Stats{}, fmt.Errorf("read %s: %w", f.Path, err)
		}
		sel = selectColumns(rec, p.cpreds, selectRows(rec, p.vpreds, sel))
		pr.lv[0].probe = sel
		err = pr.probe(rec, 0)
		rec.Release()
		if pr.pt.chargeAccs(); err == nil {
			err = pr.pt.err
		}
		if err != nil {
			pr.pt.charge.Close()
			return nil, Stats{}, fmt.Errorf("read %s: %w", f.Path, err)
		}
	}
}
