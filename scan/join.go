package scan

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// JoinCol is a column of an inner join of a table's files (the probe
// side) with rows held in memory (the build side).
type JoinCol struct {
	Build bool // a build column, else a probe-table field
	ID    int  // build: column of the build record; probe: field id
}

// JoinAggSpec is one aggregate of a join aggregation.
type JoinAggSpec struct {
	Kind AggKind
	Col  JoinCol // unused for AggCountStar or with Expr
	Expr *Expr   // an expression of probe columns, aggregated instead of Col
	// Scale is AggSpec.Scale.
	Scale int32
}

// JoinAggPlan is a compiled aggregation over an inner equi-join: filter
// conjuncts on the probe table, equalities of probe fields with build
// columns, and group keys and aggregates over columns of either side.
//
// Its AggPlan reads the probe fields (record columns 0..nProbe-1) and
// addresses build column j as record column nProbe+j, so the
// accumulators and group tables of the single-table path serve both.
type JoinAggPlan struct {
	agg       *AggPlan
	nProbe    int
	probeKeys []int // record columns of the probe join keys
	buildKeys []int // build columns they equal, pairwise
	keyTypes  []schema.Type
}

// maxPairs bounds the (probe row, build row) pairs aggregated at once: a
// build key matching many rows expands a batch that much.
const maxPairs = 1 << 13

// CompileJoinAggregate builds the plan, or reports false when a part is
// outside what the vectorised path computes exactly as GMS's row path
// would. build holds the build columns' types; its strings must compare
// byte-wise (the caller checks their collations). filters apply to the
// probe table, probeKeys are field ids and buildKeys build columns.
func CompileJoinAggregate(probe *schema.Schema, build []schema.Type, filters []sql.Expression, probeKeys, buildKeys []int, groupBy []JoinCol, aggs []JoinAggSpec) (*JoinAggPlan, bool) {
	if len(probeKeys) == 0 || len(probeKeys) != len(buildKeys) {
		return nil, false
	}
	specs := make([]AggSpec, len(aggs))
	for j, a := range aggs {
		specs[j] = AggSpec{Kind: a.Kind, Expr: a.Expr, Scale: a.Scale}
	}
	p := &AggPlan{schema: probe, aggs: specs}
	jp := &JoinAggPlan{agg: p}
	colOf := p.column
	if !p.addFilters(filters) {
		return nil, false
	}
	// Every probe field first: build columns follow them.
	for k, id := range probeKeys {
		col, t, ok := colOf(id)
		if !ok || buildKeys[k] < 0 || buildKeys[k] >= len(build) || !joinKeysMatch(t, build[buildKeys[k]]) {
			return nil, false
		}
		if c, _ := probe.ByID(id); t.Kind == schema.String && !binaryCollation(c) {
			return nil, false
		}
		jp.probeKeys = append(jp.probeKeys, col)
		jp.keyTypes = append(jp.keyTypes, t)
	}
	jp.buildKeys = buildKeys
	for _, g := range groupBy {
		if !g.Build {
			if _, _, ok := colOf(g.ID); !ok {
				return nil, false
			}
		}
	}
	bind := func(id int) (int, bool) {
		col, _, ok := colOf(id)
		return col, ok
	}
	p.aggExpr = make([]int, len(aggs))
	for j, a := range aggs {
		p.aggExpr[j] = -1
		switch {
		case a.Kind == AggCountStar:
		case a.Expr != nil:
			k, ok := p.prog.add(a.Expr, bind)
			if !ok || !supportsAgg(a.Kind, a.Expr.resultType()) || (a.Kind == AggMin || a.Kind == AggMax) && !a.Expr.goTyped() {
				return nil, false
			}
			p.aggExpr[j] = k
		case !a.Col.Build:
			if _, _, ok := colOf(a.Col.ID); !ok {
				return nil, false
			}
		}
	}
	jp.nProbe = len(p.fields)
	p.types = append(p.types, build...)
	// ref is the record column of c and its type.
	ref := func(c JoinCol) (int, schema.Type, bool) {
		if c.Build {
			if c.ID < 0 || c.ID >= len(build) {
				return 0, schema.Type{}, false
			}
			return jp.nProbe + c.ID, build[c.ID], true
		}
		col, t, _ := colOf(c.ID)
		return col, t, true
	}
	for _, g := range groupBy {
		col, t, ok := ref(g)
		if !ok || !groupable(t) {
			return nil, false
		}
		if c, _ := probe.ByID(g.ID); !g.Build && t.Kind == schema.String && !binaryCollation(c) {
			return nil, false
		}
		p.groupBy = append(p.groupBy, col)
		p.keyTypes = append(p.keyTypes, t)
	}
	for _, a := range aggs {
		if a.Kind == AggCountStar || a.Expr != nil {
			p.aggCol = append(p.aggCol, -1)
			continue
		}
		col, t, ok := ref(a.Col)
		if !ok || !supportsAgg(a.Kind, t) {
			return nil, false
		}
		if c, _ := probe.ByID(a.Col.ID); !a.Col.Build && t.Kind == schema.String && !binaryCollation(c) {
			return nil, false
		}
		p.aggCol = append(p.aggCol, col)
	}
	p.seed = maphash.MakeSeed()
	return jp, true
}

// joinKeysMatch reports whether equality of a probe key of type a and a
// build key of type b is the equality of their canonical keys (keyVals):
// integers of any width (but 64-bit unsigned only with itself: its
// canonical form is the int64 bits), dates, timestamps, strings, DECIMALs
// of one scale. Anything MySQL compares after a conversion is refused.
func joinKeysMatch(a, b schema.Type) bool {
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
	case a.Kind == schema.Uint64, a.Kind == schema.Date, a.Kind == schema.Timestamp, a.Kind == schema.String:
		return a.Kind == b.Kind
	}
	return false
}

// Run executes the plan: the build record's columns are the build
// columns, one row per build row. It prunes and reads the probe table's
// files in parallel like AggPlan.Run, and aggregates, per selected probe
// row, one pair per build row whose keys equal its keys (none when a key
// is NULL). Result rows are the group keys then the aggregates.
func (jp *JoinAggPlan) Run(ctx context.Context, in AggInput, build arrow.Record) ([]sql.Row, Stats, error) {
	b, err := jp.prepare(build)
	if err != nil {
		return nil, Stats{}, err
	}
	if b.keys.n == 0 { // no build key can match: read nothing
		in.Files = nil
	}
	return jp.agg.run(ctx, in, func(ctx context.Context, src source, f manifest.DataFile, rgs []int, ev *evaluator) (*partial, Stats, error) {
		return jp.runFile(ctx, src, f, rgs, ev, b)
	})
}

// joinBuild is the build side indexed by join key.
type joinBuild struct {
	cols  []arrow.Array
	keys  groupTable // distinct non-NULL key tuples
	first []int32    // by key: first build row with it
	next  []int32    // by build row: next row with its key, -1: none
	// groups, when every group key is a build column, is each build
	// row's group in gtab, so probing hashes no group keys.
	groups []int32
	gtab   *groupTable
}

func (jp *JoinAggPlan) prepare(build arrow.Record) (*joinBuild, error) {
	if int(build.NumCols()) != len(jp.agg.types)-jp.nProbe {
		return nil, fmt.Errorf("join build side has %d columns, want %d", build.NumCols(), len(jp.agg.types)-jp.nProbe)
	}
	n := int(build.NumRows())
	b := &joinBuild{cols: build.Columns(), next: make([]int32, n)}
	b.keys.init(jp.keyTypes, jp.agg.seed)
	keyCols := make([]arrow.Array, len(jp.buildKeys))
	for k, c := range jp.buildKeys {
		keyCols[k] = b.cols[c]
	}
	sel := nonNullRows(keyCols, rowsUpTo(n))
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
	jp.groupBuild(b, n)
	return b, nil
}

// groupBuild assigns the build rows their groups when every group key is
// a build column.
func (jp *JoinAggPlan) groupBuild(b *joinBuild, n int) {
	p := jp.agg
	if len(p.groupBy) == 0 {
		return
	}
	cols := make([]arrow.Array, len(p.groupBy))
	for k, c := range p.groupBy {
		if c < jp.nProbe {
			return
		}
		cols[k] = b.cols[c-jp.nProbe]
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

// prober is one file's probing state.
type prober struct {
	jp         *JoinAggPlan
	b          *joinBuild
	pt         *partial
	ev         *evaluator
	batch      []keyVals // the probe keys of the current batch
	h          []uint64
	match      []int32 // by position in sel: key in b.keys, -1: none
	psel, bsel []int32 // pairs: probe row, build row
	gid        []int32
	// local maps a group of b.gtab to the partial's group (-1: none
	// yet): a partial holds only groups some pair falls in, as the row
	// path's GroupBy does.
	local []int32
}

func (jp *JoinAggPlan) newProber(b *joinBuild, ev *evaluator) *prober {
	p := jp.agg
	pr := &prober{jp: jp, b: b, ev: ev, batch: make([]keyVals, len(jp.probeKeys))}
	pr.pt = p.newPartial()
	switch {
	case len(p.groupBy) == 0:
		pr.pt.group0()
	case b.gtab != nil:
		pr.local = make([]int32, b.gtab.n)
		for i := range pr.local {
			pr.local[i] = -1
		}
	}
	return pr
}

func (jp *JoinAggPlan) runFile(ctx context.Context, src source, f manifest.DataFile, rgs []int, ev *evaluator, b *joinBuild) (*partial, Stats, error) {
	p := jp.agg
	r, st, err := p.openPruned(ctx, src, f, datafile.ReadOptions{RowGroups: rgs})
	if err != nil {
		return nil, Stats{}, err
	}
	defer r.Close()
	pr := jp.newProber(b, ev)
	var sel []int32
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return pr.pt, st, nil
		}
		if err != nil {
			return nil, Stats{}, fmt.Errorf("read %s: %w", f.Path, err)
		}
		sel = selectRows(rec, p.vpreds, sel)
		err = pr.probe(rec, sel)
		rec.Release()
		if err != nil {
			return nil, Stats{}, fmt.Errorf("read %s: %w", f.Path, err)
		}
	}
}

// probe aggregates the pairs of the selected rows of rec.
func (pr *prober) probe(rec arrow.Record, sel []int32) error {
	jp := pr.jp
	keyCols := make([]arrow.Array, len(jp.probeKeys))
	for k, c := range jp.probeKeys {
		keyCols[k] = rec.Column(c)
	}
	sel = nonNullRows(keyCols, sel)
	if len(sel) == 0 {
		return nil
	}
	pr.h = sized(pr.h, len(sel))
	for k := range pr.h {
		pr.h[k] = 0x9E3779B97F4A7C15
	}
	for c, a := range keyCols {
		extractKeys(&pr.batch[c], a, sel, pr.b.keys.seed)
		hashKeys(&pr.batch[c], pr.b.keys.forms[c], pr.h)
	}
	for k := range pr.h {
		pr.h[k] = fmix64(pr.h[k])
	}
	pr.match = pr.b.keys.find(pr.batch, pr.h, pr.match[:0])
	pr.psel, pr.bsel = pr.psel[:0], pr.bsel[:0]
	for k, g := range pr.match {
		if g < 0 {
			continue
		}
		for r := pr.b.first[g]; r >= 0; r = pr.b.next[r] {
			pr.psel = append(pr.psel, sel[k])
			pr.bsel = append(pr.bsel, r)
		}
		if len(pr.psel) >= maxPairs {
			if err := pr.flush(rec); err != nil {
				return err
			}
		}
	}
	return pr.flush(rec)
}

// flush aggregates the pending pairs.
func (pr *prober) flush(rec arrow.Record) error {
	if len(pr.psel) == 0 {
		return nil
	}
	jp, p := pr.jp, pr.jp.agg
	pr.gid = pr.assign(rec)
	if len(p.prog.nodes) > 0 {
		if err := pr.ev.eval(rec, pr.psel); err != nil {
			return err
		}
	}
	n := int(rec.NumRows())
	for j, a := range pr.pt.accs {
		switch c := p.aggCol[j]; {
		case c >= jp.nProbe:
			a.update(pr.b.cols[c-jp.nProbe], pr.bsel, pr.gid)
		case c >= 0:
			a.update(rec.Column(c), pr.psel, pr.gid)
		case p.aggExpr[j] >= 0:
			col := pr.ev.output(p.aggExpr[j], n)
			a.update(col, pr.psel, pr.gid)
			col.Release()
		default: // COUNT(*)
			a.update(nil, pr.psel, pr.gid)
		}
	}
	pr.psel, pr.bsel = pr.psel[:0], pr.bsel[:0]
	return nil
}

// assign returns the group of every pending pair, creating groups.
func (pr *prober) assign(rec arrow.Record) []int32 {
	jp, p, pt := pr.jp, pr.jp.agg, pr.pt
	gid := pr.gid[:0]
	switch {
	case len(p.groupBy) == 0:
		for range pr.psel {
			gid = append(gid, 0)
		}
		return gid
	case pr.b.groups != nil:
		return pr.assignBuilt(gid)
	}
	h := sized(pt.hbuf, len(pr.psel))
	pt.hbuf = h
	for k := range h {
		h[k] = 0x9E3779B97F4A7C15
	}
	for k, c := range p.groupBy {
		var a arrow.Array
		var sel []int32
		if c >= jp.nProbe {
			a, sel = pr.b.cols[c-jp.nProbe], pr.bsel
		} else {
			a, sel = rec.Column(c), pr.psel
		}
		kv := &pt.tab.batch[k]
		extractKeys(kv, a, sel, pt.tab.seed)
		hashKeys(kv, pt.tab.forms[k], h)
	}
	for k := range h {
		h[k] = fmix64(h[k])
	}
	return pt.groups(h, gid)
}

// assignBuilt appends the group of every pending pair from its build
// row's group, copying groups into the partial when first met. The
// partial's table is only merged from (mergeKeys reads keys and hashes),
// so its slots stay empty.
func (pr *prober) assignBuilt(gid []int32) []int32 {
	pt, gt := pr.pt, pr.b.gtab
	for _, r := range pr.bsel {
		g := pr.b.groups[r]
		l := pr.local[g]
		if l < 0 {
			l = pt.tab.add(gt.keys, int(g), gt.hash[g])
			pr.local[g] = l
			for _, acc := range pt.accs {
				acc.grow(pt.tab.n)
			}
		}
		gid = append(gid, l)
	}
	return gid
}
