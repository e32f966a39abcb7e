package scan

import (
	"math"
	"slices"
	"sync"

	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// threshold is the tightest first-key value known to sort at or before
// the k-th best row: the worst of any worker's full heap. Safe for
// concurrent use.
type threshold struct {
	mu  sync.Mutex
	set bool
	v   keyVal
}

func (t *threshold) get() (keyVal, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.v, t.set
}

// offerThreshold tightens t with the worst first key of h, once full.
func (p *TopNPlan) offerThreshold(t *threshold, h *topHeap) {
	if !h.full() {
		return
	}
	v := h.items[0].keys[0]
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.set || cmpKey(p.keys[0], p.types[p.keyCol[0]], &v, &t.v) < 0 {
		t.v, t.set = v, true
	}
}

// bounds are what footer or manifest statistics say of the first key in
// a row group or file: lo and hi in the stats domain (nil: unknown).
type bounds struct {
	allNull bool
	nulls   int64 // -1: unknown
	lo, hi  any
}

func rowGroupBounds(t schema.Type, cs datafile.ColumnStats) bounds {
	b := bounds{allNull: cs.Missing, nulls: cs.NullCount}
	if cs.Min != nil {
		b.lo = domainValue(t, cs.Min)
	}
	if cs.Max != nil {
		b.hi = domainValue(t, cs.Max)
	}
	return b
}

// fileBounds reads the manifest's statistics of the first key, or false.
func (p *TopNPlan) fileBounds(f *manifest.DataFile) (bounds, bool) {
	if f.StatsState != "" && f.StatsState != manifest.StatsProvided {
		return bounds{}, false
	}
	st, ok := statsFor(f, p.keys[0].FieldID, p.types[p.keyCol[0]])
	if !ok {
		return bounds{}, false
	}
	return bounds{
		allNull: st.values > 0 && st.nulls == st.values,
		nulls:   st.nulls,
		lo:      st.lower,
		hi:      st.upper,
	}, true
}

// judged reports whether bounds of the first key may skip data: only
// integer, decimal, date and timestamp keys (float bounds leave NaN out,
// which must reach the NaN check; string bounds may be absent).
func (p *TopNPlan) judged() bool {
	switch p.types[p.keyCol[0]].Kind {
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64,
		schema.Decimal, schema.Date, schema.Timestamp:
		return true
	}
	return false
}

// mayEnter reports whether data with first-key bounds b may hold a row
// that is not strictly after the threshold worst on the first key alone
// (so might beat it on the other keys or scan order).
func (p *TopNPlan) mayEnter(worst keyVal, known bool, b bounds) bool {
	if !known || worst.null || !p.judged() {
		return true
	}
	k, t := p.keys[0], p.types[p.keyCol[0]]
	if b.allNull {
		return k.NullsFirst // all NULL: they win only if NULLs come first
	}
	if k.NullsFirst && b.nulls != 0 {
		return true
	}
	w, ok := keyDomain(t, worst)
	if !ok {
		return true
	}
	bound := b.lo
	if k.Desc {
		bound = b.hi
	}
	if bound == nil {
		return true
	}
	c, ok := compare(bound, w)
	if !ok {
		return true
	}
	if k.Desc {
		return c >= 0 // the largest value is not below the worst
	}
	return c <= 0
}

// scanOrder orders the files to read most promising first: by the
// manifest's best first-key bound (files without one first), so the
// threshold tightens early and later files skip on their bounds alone.
// Ties break on scan order, which the result never depends on.
func (p *TopNPlan) scanOrder(files []manifest.DataFile) []int {
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	if !p.judged() {
		return order
	}
	k := p.keys[0]
	best := make([]any, len(files)) // nil: unknown, or NULLs that may come first
	for i := range files {
		b, ok := p.fileBounds(&files[i])
		switch {
		case !ok || (k.NullsFirst && b.nulls != 0):
		case k.Desc:
			best[i] = b.hi
		default:
			best[i] = b.lo
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := best[a], best[b]
		switch {
		case x == nil && y == nil:
			return 0
		case x == nil:
			return -1
		case y == nil:
			return 1
		}
		c, ok := compare(x, y)
		if !ok {
			return 0
		}
		if k.Desc {
			return -c
		}
		return c
	})
	return order
}

// keyDomain converts a key value to the stats comparison domain (see
// colStats), for the kinds mayEnter judges.
func keyDomain(t schema.Type, v keyVal) (any, bool) {
	switch t.Kind {
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32:
		return v.i, true
	case schema.Uint64:
		if v.u > math.MaxInt64 {
			return nil, false
		}
		return int64(v.u), true
	case schema.Date:
		return v.i * 86400 * 1e6, true
	case schema.Timestamp:
		return v.i, true // microseconds: datafile.ArrowType
	case schema.Decimal:
		return decimal.NewFromBigInt(v.d.BigInt(), -int32(t.Scale)), true
	}
	return nil, false
}
