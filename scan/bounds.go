package scan

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Bounds is a columnar, typed view of one manifest's file statistics, for
// pruning: per column (field id and type), a row per file of null and value
// counts and lower/upper bounds in the comparison domain, in flat typed
// slices. Columns are built on first use, once, and reused by every later
// plan of the same manifest, so pruning is a tight loop over int64s rather
// than a per-file search of field ids and a decode of boxed bounds.
//
// It answers exactly what the per-file logic (mightMatch, statsFor)
// answers: files whose stats are pending or failed, float columns of files
// that hold (or may hold) NaN, and columns without stats keep the file;
// truncated upper bounds are not bounds. Safe for concurrent use.
type Bounds struct {
	n int // files

	mu   sync.Mutex
	cols map[colKey]*boundsCol
	size int64 // bytes of the built columns
}

// colKey names one built column: bounds decode by type, so a field read
// under two types (it cannot be, within one schema) gets two columns.
type colKey struct {
	fieldID int
	kind    schema.Kind
	scale   int
}

// boundDomain is a column's comparison domain (see colStats).
type boundDomain uint8

const (
	bdInt   boundDomain = iota // int64: integers, booleans, dates, timestamps (µs)
	bdFloat                    // float64
	bdAny                      // decimal.Decimal, string: compared through compare
)

// boundsCol is one column over all files. Row i describes file i.
type boundsCol struct {
	dom boundDomain
	// keep[i]: predicates on this column never prune file i (stats not
	// provided, no stats for the column, NaN possible in a float column).
	keep          []bool
	nulls, values []int64
	hasLo, hasHi  []bool
	loI, hiI      []int64
	loF, hiF      []float64
	loA, hiA      []any
}

// NewBounds returns the (empty, lazily filled) bounds of n files.
func NewBounds(n int) *Bounds {
	return &Bounds{n: n, cols: map[colKey]*boundsCol{}}
}

func domainOf(k schema.Kind) boundDomain {
	switch k {
	case schema.Float32, schema.Float64:
		return bdFloat
	case schema.Decimal, schema.String, schema.JSON, schema.Binary:
		return bdAny
	}
	return bdInt
}

// column returns the built column for a field, building it from files (the
// manifest's entries, in order) on first use. The bool reports whether it
// was built now, with its size.
func (b *Bounds) column(files []manifest.DataFile, fieldID int, t schema.Type) (*boundsCol, int64) {
	k := colKey{fieldID, t.Kind, t.Scale}
	b.mu.Lock()
	defer b.mu.Unlock()
	if c, ok := b.cols[k]; ok {
		return c, 0
	}
	c := buildColumn(files, fieldID, t)
	b.cols[k] = c
	sz := c.bytes()
	b.size += sz
	return c, sz
}

// Size returns the bytes the built columns hold.
func (b *Bounds) Size() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size
}

func buildColumn(files []manifest.DataFile, fieldID int, t schema.Type) *boundsCol {
	n := len(files)
	c := &boundsCol{
		dom:  domainOf(t.Kind),
		keep: make([]bool, n), nulls: make([]int64, n), values: make([]int64, n),
		hasLo: make([]bool, n), hasHi: make([]bool, n),
	}
	switch c.dom {
	case bdInt:
		c.loI, c.hiI = make([]int64, n), make([]int64, n)
	case bdFloat:
		c.loF, c.hiF = make([]float64, n), make([]float64, n)
	default:
		c.loA, c.hiA = make([]any, n), make([]any, n)
	}
	float := c.dom == bdFloat
	hint := -1 // files of one table list field ids in the same order: try the last position first
	for i := range files {
		f := &files[i]
		if f.StatsState != "" && f.StatsState != manifest.StatsProvided {
			c.keep[i] = true
			continue
		}
		pos := f.FieldIndex(fieldID, hint)
		cs, ok := f.ColumnStatsAt(pos)
		if float && (pos < 0 || cs.NaNs != 0) {
			c.keep[i] = true // NaN possible: GMS compares NaN as matching, bounds leave it out
			continue
		}
		if !ok { // a missing column of a file whose stats are not provided: unknown, no pruning
			c.keep[i] = true
			continue
		}
		if pos >= 0 {
			hint = pos
		}
		if c.dom == bdAny {
			c.set(i, decodeStats(cs, t)) // the reference decode
			continue
		}
		c.setTyped(i, cs, t)
	}
	return c
}

func (c *boundsCol) set(i int, st colStats) {
	c.nulls[i], c.values[i] = st.nulls, st.values
	switch c.dom {
	case bdInt:
		c.loI[i], c.hasLo[i] = asInt(st.lower)
		c.hiI[i], c.hasHi[i] = asInt(st.upper)
	case bdFloat:
		c.loF[i], c.hasLo[i] = asFloat(st.lower)
		c.hiF[i], c.hasHi[i] = asFloat(st.upper)
	default:
		c.loA[i], c.hasLo[i] = st.lower, st.lower != nil
		c.hiA[i], c.hasHi[i] = st.upper, st.upper != nil
	}
}

// setTyped is set(decodeStats(...)) for int and float domains, decoding
// the bounds without boxing them (decodeInt, decodeFloat).
func (c *boundsCol) setTyped(i int, cs manifest.ColumnStats, t schema.Type) {
	c.nulls[i], c.values[i] = cs.Nulls, cs.Values
	lo, hi := cs.Lower, cs.Upper
	if !cs.Exact {
		hi = nil // a truncated upper bound is not an upper bound
	}
	if c.dom == bdInt {
		if lo != nil {
			c.loI[i], c.hasLo[i] = decodeInt(t.Kind, lo)
		}
		if hi != nil {
			c.hiI[i], c.hasHi[i] = decodeInt(t.Kind, hi)
		}
		return
	}
	if lo != nil {
		c.loF[i], c.hasLo[i] = decodeFloat(t.Kind, lo)
	}
	if hi != nil {
		c.hiF[i], c.hasHi[i] = decodeFloat(t.Kind, hi)
	}
}

// decodeInt is boundValue for the int domain: datafile.DecodeBound then
// domainValue, without an interface per value. false: no usable bound.
func decodeInt(k schema.Kind, b []byte) (int64, bool) {
	switch k {
	case schema.Bool:
		if len(b) != 1 {
			return 0, false
		}
		if b[0] != 0 {
			return 1, true
		}
		return 0, true
	case schema.Int8, schema.Int16, schema.Int32, schema.Uint8, schema.Uint16:
		if len(b) != 4 {
			return 0, false
		}
		return int64(int32(binary.LittleEndian.Uint32(b))), true
	case schema.Date:
		if len(b) != 4 {
			return 0, false
		}
		return int64(int32(binary.LittleEndian.Uint32(b))) * dayMicros, true
	case schema.Int64, schema.Uint32, schema.Time, schema.Timestamp:
		if len(b) == 4 && (k == schema.Int64 || k == schema.Uint32) {
			return int64(int32(binary.LittleEndian.Uint32(b))), true
		}
		if len(b) != 8 {
			return 0, false
		}
		return int64(binary.LittleEndian.Uint64(b)), true
	case schema.Uint64:
		switch len(b) {
		case 4:
			return int64(binary.LittleEndian.Uint32(b)), true
		case 8:
			u := binary.LittleEndian.Uint64(b)
			return int64(u), u <= math.MaxInt64
		}
	}
	return 0, false
}

// decodeFloat is boundValue for the float domain (NaN is no bound).
func decodeFloat(k schema.Kind, b []byte) (float64, bool) {
	var f float64
	switch {
	case len(b) == 4:
		f = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case len(b) == 8 && k == schema.Float64:
		f = math.Float64frombits(binary.LittleEndian.Uint64(b))
	default:
		return 0, false
	}
	return f, !math.IsNaN(f)
}

func asInt(v any) (int64, bool) {
	x, ok := v.(int64)
	return x, ok
}

func asFloat(v any) (float64, bool) {
	x, ok := v.(float64)
	return x, ok
}

func (c *boundsCol) bytes() int64 {
	n := int64(len(c.keep))
	per := int64(1 + 8 + 8 + 1 + 1)
	switch c.dom {
	case bdInt, bdFloat:
		per += 16
	default:
		per += 2 * 40 // interface plus a small payload
	}
	return n*per + 200
}

// filter keeps in idx the files that may hold a row for which p is true,
// as colStats.mightMatch decides, and returns them (idx is reused). ok is
// false when p's values are not in the column's domain: the caller then
// decides per file.
func (c *boundsCol) filter(idx []int32, p Predicate) ([]int32, bool) {
	for _, v := range p.Values {
		switch c.dom {
		case bdInt:
			if _, ok := v.(int64); !ok {
				return idx, false
			}
		case bdFloat:
			if _, ok := v.(float64); !ok {
				return idx, false
			}
		}
	}
	out := idx[:0]
	switch p.Op {
	case OpIsNull:
		for _, i := range idx {
			if c.keep[i] || c.nulls[i] != 0 {
				out = append(out, i)
			}
		}
		return out, true
	case OpNotNull:
		for _, i := range idx {
			if c.keep[i] || c.nulls[i] < 0 || c.values[i] < 0 || c.values[i] > c.nulls[i] {
				out = append(out, i)
			}
		}
		return out, true
	}
	for _, i := range idx {
		if c.keep[i] || c.mightMatch(int(i), p) {
			out = append(out, i)
		}
	}
	return out, true
}

// mightMatch is colStats.mightMatch for a comparison, over row i.
func (c *boundsCol) mightMatch(i int, p Predicate) bool {
	if v, nl := c.values[i], c.nulls[i]; v >= 0 && nl >= 0 && v == nl && v > 0 {
		return false // every value is NULL: no comparison is true
	}
	for _, v := range p.Values {
		var lo, hi int // lower vs v, upper vs v
		switch c.dom {
		case bdInt:
			x := v.(int64)
			lo, hi = cmpOrdered(c.loI[i], x), cmpOrdered(c.hiI[i], x)
		case bdFloat:
			x := v.(float64)
			lo, hi = cmpOrdered(c.loF[i], x), cmpOrdered(c.hiF[i], x)
		default:
			var okLo, okHi bool
			if c.hasLo[i] {
				lo, okLo = compare(c.loA[i], v)
			}
			if c.hasHi[i] {
				hi, okHi = compare(c.hiA[i], v)
			}
			if inRange(p.Op, lo, okLo, hi, okHi) {
				return true
			}
			continue
		}
		if inRange(p.Op, lo, c.hasLo[i], hi, c.hasHi[i]) {
			return true
		}
	}
	return false
}

// inRange decides colStats.inRange from the comparisons of the bounds with the
// value (hasLo/hasHi false: no bound, or not comparable).
func inRange(op Op, lo int, hasLo bool, hi int, hasHi bool) bool {
	switch op {
	case OpEq, OpIn:
		return (!hasLo || lo <= 0) && (!hasHi || hi >= 0)
	case OpLt:
		return !hasLo || lo < 0
	case OpLe:
		return !hasLo || lo <= 0
	case OpGt:
		return !hasHi || hi > 0
	case OpGe:
		return !hasHi || hi >= 0
	}
	return true
}
