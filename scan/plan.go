package scan

import (
	"math"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Op is a comparison a predicate makes.
type Op int

const (
	OpEq Op = iota
	OpLt
	OpLe
	OpGt
	OpGe
	OpIn
	OpIsNull
	OpNotNull
)

// Predicate is one conjunct on one column, with literal values already in
// the catalog's value representation for the column's type (see
// literalValue). Pruning keeps every file that might hold a matching row.
type Predicate struct {
	FieldID int
	Type    schema.Type
	Op      Op
	Values  []any
}

// Predicates turns the filter conjuncts pushed into a table into the
// predicates pruning understands: column op literal, BETWEEN, IN and IS
// [NOT] NULL. Anything else (functions, OR, casts, other columns) yields
// no predicate, which prunes nothing.
func Predicates(s *schema.Schema, filters []sql.Expression) []Predicate {
	var out []Predicate
	for _, f := range filters {
		for _, c := range splitAnd(f) {
			out = append(out, predicate(s, c)...)
		}
	}
	return out
}

func splitAnd(e sql.Expression) []sql.Expression {
	if a, ok := e.(*expression.And); ok {
		return append(splitAnd(a.LeftChild), splitAnd(a.RightChild)...)
	}
	return []sql.Expression{e}
}

func column(s *schema.Schema, e sql.Expression) (schema.Column, bool) {
	gf, ok := e.(*expression.GetField)
	if !ok {
		return schema.Column{}, false
	}
	return s.Column(gf.Name())
}

func literal(e sql.Expression) (any, bool) {
	l, ok := e.(*expression.Literal)
	if !ok {
		return nil, false
	}
	return l.Value(), true
}

func predicate(s *schema.Schema, e sql.Expression) []Predicate {
	mk := func(col schema.Column, op Op, lits ...any) []Predicate {
		vals := make([]any, 0, len(lits))
		for _, l := range lits {
			v, ok := literalValue(col, l)
			if !ok {
				return nil
			}
			vals = append(vals, v)
		}
		return []Predicate{{FieldID: col.ID, Type: col.Type, Op: op, Values: vals}}
	}
	switch x := e.(type) {
	case *expression.IsNull:
		if col, ok := column(s, x.Child); ok {
			return []Predicate{{FieldID: col.ID, Type: col.Type, Op: OpIsNull}}
		}
	case *expression.Not:
		if in, ok := x.Child.(*expression.IsNull); ok {
			if col, ok := column(s, in.Child); ok {
				return []Predicate{{FieldID: col.ID, Type: col.Type, Op: OpNotNull}}
			}
		}
	case *expression.Between:
		col, ok := column(s, x.Val)
		lo, ok1 := literal(x.Lower)
		hi, ok2 := literal(x.Upper)
		if ok && ok1 && ok2 {
			return append(mk(col, OpGe, lo), mk(col, OpLe, hi)...)
		}
	case *expression.InTuple:
		col, ok := column(s, x.Left())
		tup, ok2 := x.Right().(expression.Tuple)
		if !ok || !ok2 {
			return nil
		}
		lits := make([]any, 0, len(tup))
		for _, t := range tup {
			l, ok := literal(t)
			if !ok {
				return nil
			}
			lits = append(lits, l)
		}
		return mk(col, OpIn, lits...)
	case expression.Comparer:
		op, ok := compareOp(x)
		if !ok {
			return nil
		}
		if col, ok := column(s, x.Left()); ok {
			if l, ok := literal(x.Right()); ok {
				return mk(col, op, l)
			}
		}
		if col, ok := column(s, x.Right()); ok {
			if l, ok := literal(x.Left()); ok {
				return mk(col, flip(op), l)
			}
		}
	}
	return nil
}

func compareOp(c expression.Comparer) (Op, bool) {
	switch c.(type) {
	case *expression.Equals:
		return OpEq, true
	case *expression.LessThan:
		return OpLt, true
	case *expression.LessThanOrEqual:
		return OpLe, true
	case *expression.GreaterThan:
		return OpGt, true
	case *expression.GreaterThanOrEqual:
		return OpGe, true
	}
	return 0, false
}

func flip(op Op) Op {
	switch op {
	case OpLt:
		return OpGt
	case OpLe:
		return OpGe
	case OpGt:
		return OpLt
	case OpGe:
		return OpLe
	}
	return op
}

// literalValue converts a SQL literal to the column's comparison domain,
// or reports false when the comparison's semantics are not plain value
// order in that domain (a string compared with a number, a non-integral
// number against an integer column, NULL): such predicates prune nothing.
func literalValue(col schema.Column, v any) (any, bool) {
	if v == nil {
		return nil, false
	}
	switch col.Type.Kind {
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64, schema.Bool:
		f, ok := number(v)
		if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, false
		}
		return int64(f), true
	case schema.Float32, schema.Float64:
		f, ok := number(v)
		if !ok || math.IsNaN(f) {
			return nil, false
		}
		if col.Type.Kind == schema.Float32 && float64(float32(f)) != f {
			return nil, false // float32 storage rounds: compare exactly or not at all
		}
		return f, true
	case schema.Decimal:
		switch x := v.(type) {
		case decimal.Decimal:
			return x, true
		default:
			if f, ok := number(v); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				return decimal.NewFromFloat(f), true
			}
		}
	case schema.String:
		if s, ok := v.(string); ok && binaryCollation(col) {
			return s, true
		}
	case schema.Date, schema.Timestamp:
		if t, ok := v.(time.Time); ok {
			return t.UTC().UnixMicro(), true
		}
	}
	return nil, false
}

// binaryCollation reports whether strings of col compare byte-wise, which
// is what bounds order by.
func binaryCollation(col schema.Column) bool {
	t := strings.ToLower(col.SQLType)
	return !strings.Contains(t, "collate") || strings.Contains(t, "_bin")
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float32:
		return float64(x), true
	case float64:
		return x, true
	case decimal.Decimal:
		f, _ := x.Float64()
		if !decimal.NewFromFloat(f).Equal(x) {
			return 0, false
		}
		return f, true
	}
	return 0, false
}

// Prune returns the files that might hold rows matching every predicate,
// in their original order: by partition values (under each file's spec,
// one of specs) and by column bounds. Files whose stats are not provided
// are pruned by partition values only. It builds the columnar bounds of
// the predicates' columns for this call; Pruner keeps them per manifest.
func Prune(files []manifest.DataFile, specs []partition.Spec, preds []Predicate) []manifest.DataFile {
	return prune(files, specs, preds)
}

// PruneFunc prunes a manifest's files by predicates: Prune, or a
// Pruner's cached Prune bound to the manifest (Pruner.For).
type PruneFunc func(files []manifest.DataFile, specs []partition.Spec, preds []Predicate) []manifest.DataFile

// pruneWith runs f, or Prune when f is nil.
func pruneWith(f PruneFunc, files []manifest.DataFile, specs []partition.Spec, preds []Predicate) []manifest.DataFile {
	if f == nil {
		return Prune(files, specs, preds)
	}
	return f(files, specs, preds)
}

func prune(files []manifest.DataFile, specs []partition.Spec, preds []Predicate) []manifest.DataFile {
	if len(preds) == 0 {
		return files
	}
	return NewBounds(len(files)).Prune(files, specs, preds)
}

// Prune is the package's Prune over b's columns. files must be the
// manifest entries b describes, in order (b is built from them on first
// use of each column).
func (b *Bounds) Prune(files []manifest.DataFile, specs []partition.Spec, preds []Predicate) []manifest.DataFile {
	if len(preds) == 0 {
		return files
	}
	if len(files) != b.n {
		return pruneFiles(files, specs, preds)
	}
	idx := make([]int32, len(files))
	for i := range idx {
		idx[i] = int32(i)
	}
	var slow []Predicate // values outside the column's domain: decided per file
	for _, p := range preds {
		c, _ := b.column(files, p.FieldID, p.Type)
		var ok bool
		if idx, ok = c.filter(idx, p); !ok {
			slow = append(slow, p)
		}
	}
	out := make([]manifest.DataFile, 0, len(idx))
	for _, i := range idx {
		f := &files[i]
		if (len(slow) == 0 || mightMatch(f, slow)) && partitionMightMatch(f, specs, preds) {
			out = append(out, *f)
		}
	}
	return out
}

// pruneFiles is the per-file reference for Prune: the columnar path must
// keep exactly the files it keeps.
func pruneFiles(files []manifest.DataFile, specs []partition.Spec, preds []Predicate) []manifest.DataFile {
	if len(preds) == 0 {
		return files
	}
	out := files[:0:0]
	for i := range files {
		if partitionMightMatch(&files[i], specs, preds) && mightMatch(&files[i], preds) {
			out = append(out, files[i])
		}
	}
	return out
}

func mightMatch(f *manifest.DataFile, preds []Predicate) bool {
	if f.StatsState != "" && f.StatsState != manifest.StatsProvided {
		return true
	}
	for _, p := range preds {
		if (p.Type.Kind == schema.Float32 || p.Type.Kind == schema.Float64) && nanCount(f, p.FieldID) != 0 {
			continue // GMS compares NaN as matching; bounds leave NaN out
		}
		st, ok := statsFor(f, p.FieldID, p.Type)
		if !ok {
			continue
		}
		if !st.mightMatch(p) {
			return false
		}
	}
	return true
}

// nanCount is a file's NaN count for a field (-1: unknown).
func nanCount(f *manifest.DataFile, fieldID int) int64 {
	for i, id := range f.FieldIDs {
		if id == fieldID && i < len(f.NaNCounts) {
			return f.NaNCounts[i]
		}
	}
	return -1
}
