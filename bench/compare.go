package main

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/shopspring/decimal"
)

// cellKind is how a result value is compared.
type cellKind int

const (
	kNull  cellKind = iota
	kExact          // integers and decimals: r, with scale the decimal digits
	kFloat          // f
	kText           // s: strings, dates
)

// cell is one normalised result value.
type cell struct {
	kind  cellKind
	r     *big.Rat
	scale int
	f     float64
	s     string
}

func (c cell) String() string {
	switch c.kind {
	case kNull:
		return "NULL"
	case kExact:
		return c.r.FloatString(c.scale)
	case kFloat:
		return strconv.FormatFloat(c.f, 'g', 17, 64)
	}
	return strconv.Quote(c.s)
}

func (c cell) float() float64 {
	if c.kind == kExact {
		f, _ := c.r.Float64()
		return f
	}
	return c.f
}

func exact(r *big.Rat, scale int) cell { return cell{kind: kExact, r: r, scale: scale} }

func ratInt(i int64) cell { return exact(new(big.Rat).SetInt64(i), 0) }

// normalise maps a value as either engine returns it (GMS's Go values,
// database/sql values from DuckDB) to a cell.
func normalise(v any) cell {
	switch x := v.(type) {
	case nil:
		return cell{}
	case bool:
		if x {
			return ratInt(1)
		}
		return ratInt(0)
	case int:
		return ratInt(int64(x))
	case int8:
		return ratInt(int64(x))
	case int16:
		return ratInt(int64(x))
	case int32:
		return ratInt(int64(x))
	case int64:
		return ratInt(x)
	case uint8:
		return ratInt(int64(x))
	case uint16:
		return ratInt(int64(x))
	case uint32:
		return ratInt(int64(x))
	case uint64:
		return exact(new(big.Rat).SetInt(new(big.Int).SetUint64(x)), 0)
	case *big.Int:
		return exact(new(big.Rat).SetInt(x), 0)
	case float32:
		return cell{kind: kFloat, f: float64(x)}
	case float64:
		return cell{kind: kFloat, f: x}
	case decimal.Decimal:
		return exact(x.Rat(), max(0, int(-x.Exponent())))
	case duckdb.Decimal:
		den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil)
		return exact(new(big.Rat).SetFrac(x.Value, den), int(x.Scale))
	case string:
		return cell{kind: kText, s: x}
	case []byte:
		return cell{kind: kText, s: string(x)}
	case time.Time:
		x = x.UTC()
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return cell{kind: kText, s: x.Format(time.DateOnly)}
		}
		return cell{kind: kText, s: x.Format("2006-01-02 15:04:05.999999")}
	}
	return cell{kind: kText, s: fmt.Sprint(v)}
}

// asNumber reads a text cell as a number, for an engine that returned a
// number as text.
func asNumber(c cell) (cell, bool) {
	if c.kind != kText {
		return c, c.kind == kExact || c.kind == kFloat
	}
	r, ok := new(big.Rat).SetString(strings.TrimSpace(c.s))
	if !ok {
		return c, false
	}
	scale := 0
	if i := strings.IndexByte(c.s, '.'); i >= 0 {
		scale = len(strings.TrimSpace(c.s)) - i - 1
	}
	return exact(r, scale), true
}

// Tolerances: floats agree to 1e-9 relative; a float agrees with a decimal
// of scale s>0 also when it rounds to it (the decimal is the rounding of
// the true value at s digits, as MySQL's AVG of a DECIMAL is).
const relTol = 1e-9

func floatsAgree(a, b float64) bool {
	if a == b || (math.IsNaN(a) && math.IsNaN(b)) {
		return true
	}
	return math.Abs(a-b) <= relTol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// roundRat rounds r to scale digits, half away from zero (in one step:
// rounding first to scale+1 digits would round twice).
func roundRat(r *big.Rat, scale int) *big.Rat {
	out, ok := new(big.Rat).SetString(r.FloatString(scale))
	if !ok {
		return r
	}
	return out
}

// cellsAgree compares a lakesql cell with a DuckDB one.
func cellsAgree(a, b cell) bool {
	if a.kind == kNull || b.kind == kNull {
		return a.kind == b.kind
	}
	if a.kind == kFloat && b.kind != kText && roundedDecimalAgrees(a.f, b) {
		return true
	}
	if a.kind == kText && b.kind == kText {
		return a.s == b.s
	}
	na, oka := asNumber(a)
	nb, okb := asNumber(b)
	if !oka || !okb {
		return false
	}
	switch {
	case na.kind == kExact && nb.kind == kExact:
		if na.r.Cmp(nb.r) == 0 {
			return true
		}
		// Decimals of different scales agree when the finer one formats
		// to the coarser one.
		if na.scale == nb.scale {
			return false
		}
		fine, coarse := na, nb
		if fine.scale < coarse.scale {
			fine, coarse = coarse, fine
		}
		return roundRat(fine.r, coarse.scale).Cmp(coarse.r) == 0
	case na.kind == kExact || nb.kind == kExact:
		ex, fl := na, nb
		if ex.kind != kExact {
			ex, fl = nb, na
		}
		if floatsAgree(ex.float(), fl.f) {
			return true
		}
		if ex.scale > 0 && !math.IsInf(fl.f, 0) && !math.IsNaN(fl.f) {
			r := new(big.Rat).SetFloat64(fl.f)
			return roundRat(r, ex.scale).Cmp(ex.r) == 0
		}
		return false
	default:
		return floatsAgree(na.f, nb.f)
	}
}

// sameDecimal is the stricter check of query.ExactDecimals: when both
// sides are decimals, their values are equal (not merely equal once the
// finer is rounded to the coarser's scale).
func sameDecimal(a, b cell) bool {
	if a.kind != kExact || b.kind != kExact {
		return true
	}
	return a.r.Cmp(b.r) == 0
}

// maxRoundedDigits and maxRoundedSignificant bound roundedDecimalAgrees:
// a double whose shortest representation has at most this many fraction
// digits and significant digits is taken for a rounded decimal.
const (
	maxRoundedDigits      = 10
	maxRoundedSignificant = 15
	divPrecisionIncrement = 4
)

// roundedDecimalAgrees is the tolerance for a DOUBLE lakesql computed as
// a DECIMAL and sent as a double (over the wire, AVG and SUM of DECIMAL
// columns are typed DOUBLE today, but their values are MySQL's decimal
// results: AVG and division rounded to 4 more digits than their
// argument). Such a double's shortest representation is the rounded
// decimal (25.575155 for an AVG of scale 6); it agrees when DuckDB's value
// rounds, half away from zero, to it at that many digits, which must be
// at least DuckDB's decimal scale, or 4 (MySQL's div_precision_increment)
// against a DuckDB double. Doubles with longer representations get only
// the 1e-9 relative tolerance.
func roundedDecimalAgrees(f float64, duck cell) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return false
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	digits := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		digits = len(s) - i - 1
	}
	sig := len(strings.TrimLeft(strings.NewReplacer("-", "", ".", "").Replace(s), "0"))
	if digits == 0 || digits > maxRoundedDigits || sig > maxRoundedSignificant {
		return false
	}
	var r *big.Rat
	switch duck.kind {
	case kExact:
		if digits < duck.scale {
			return false
		}
		r = duck.r
	case kFloat:
		if digits < divPrecisionIncrement || math.IsInf(duck.f, 0) || math.IsNaN(duck.f) {
			return false
		}
		r = new(big.Rat).SetFloat64(duck.f)
	default:
		return false
	}
	want, ok := new(big.Rat).SetString(s)
	return ok && roundRat(r, digits).Cmp(want) == 0
}

// cmpCells orders cells for sorting: NULL first, then numbers by value,
// then text.
func cmpCells(a, b cell) int {
	rank := func(c cell) int {
		switch c.kind {
		case kNull:
			return 0
		case kExact, kFloat:
			return 1
		}
		return 2
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	switch a.kind {
	case kNull:
		return 0
	case kText:
		return strings.Compare(a.s, b.s)
	}
	if a.kind == kExact && b.kind == kExact {
		return a.r.Cmp(b.r)
	}
	fa, fb := a.float(), b.float()
	switch {
	case fa < fb:
		return -1
	case fa > fb:
		return 1
	}
	return 0
}

func normaliseRows(rows [][]any, sorted bool) [][]cell {
	out := make([][]cell, len(rows))
	for i, r := range rows {
		out[i] = make([]cell, len(r))
		for j, v := range r {
			out[i][j] = normalise(v)
		}
	}
	if sorted {
		slices.SortFunc(out, func(a, b []cell) int {
			for j := range min(len(a), len(b)) {
				if c := cmpCells(a[j], b[j]); c != 0 {
					return c
				}
			}
			return len(a) - len(b)
		})
	}
	return out
}

func rowString(r []cell) string {
	parts := make([]string, len(r))
	for i, c := range r {
		parts[i] = c.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// diffResults compares lakesql's rows with DuckDB's and describes the
// differences ("" when they agree).
func diffResults(q query, lake, duck [][]any) string {
	a := normaliseRows(lake, !q.Ordered)
	b := normaliseRows(duck, !q.Ordered)
	var sb strings.Builder
	if len(a) != len(b) {
		fmt.Fprintf(&sb, "  row count: lakesql %d, duckdb %d\n", len(a), len(b))
	}
	shown := 0
	for i := range max(len(a), len(b)) {
		var ra, rb []cell
		if i < len(a) {
			ra = a[i]
		}
		if i < len(b) {
			rb = b[i]
		}
		if ra != nil && rb != nil && len(ra) == len(rb) {
			agree := true
			for j := range ra {
				if !cellsAgree(ra[j], rb[j]) || (q.ExactDecimals && !sameDecimal(ra[j], rb[j])) {
					agree = false
					break
				}
			}
			if agree {
				continue
			}
		}
		if shown == 10 {
			sb.WriteString("  ...\n")
			break
		}
		shown++
		fmt.Fprintf(&sb, "  row %d:\n    lakesql: %s\n    duckdb:  %s\n", i, fmtRow(ra), fmtRow(rb))
	}
	return sb.String()
}

func fmtRow(r []cell) string {
	if r == nil {
		return "(missing)"
	}
	return rowString(r)
}
