package partition

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Decimal is the Go representation of a decimal(P,S) value: Unscaled ×
// 10^-Scale. Scale must equal the column's scale. A Decimal is never
// modified by this package; results are new values.
type Decimal struct {
	Unscaled *big.Int
	Scale    int
}

// ParseDecimal parses plain decimal text ("-10.65", "3", ".5" is refused)
// at the given scale; fewer fraction digits are padded, more are refused.
func ParseDecimal(s string, scale int) (Decimal, error) {
	m := decimalText.FindStringSubmatch(s)
	if m == nil || scale < 0 || len(m[3]) > scale {
		return Decimal{}, fmt.Errorf("%w: %q is not a decimal with scale %d", ErrBadValue, s, scale)
	}
	u, _ := new(big.Int).SetString(m[1]+m[2]+m[3]+strings.Repeat("0", scale-len(m[3])), 10)
	return Decimal{Unscaled: u, Scale: scale}, nil
}

var decimalText = regexp.MustCompile(`^(-?)(\d+)(?:\.(\d+))?$`)

// String renders d as plain decimal text with exactly Scale fraction
// digits: "10.50", "-0.05", "1420".
func (d Decimal) String() string {
	if d.Unscaled == nil {
		return "<nil>"
	}
	digits := new(big.Int).Abs(d.Unscaled).String()
	sign := ""
	if d.Unscaled.Sign() < 0 {
		sign = "-"
	}
	if d.Scale <= 0 {
		return sign + digits
	}
	if len(digits) <= d.Scale {
		digits = strings.Repeat("0", d.Scale-len(digits)+1) + digits
	}
	return sign + digits[:len(digits)-d.Scale] + "." + digits[len(digits)-d.Scale:]
}

const (
	microsPerSecond = 1_000_000
	microsPerHour   = 3600 * microsPerSecond
	microsPerDay    = 24 * microsPerHour
)

var pow10 = func() []*big.Int {
	p := make([]*big.Int, 39)
	for i := range p {
		p[i] = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(i)), nil)
	}
	return p
}()

func isIntKind(k schema.Kind) bool {
	switch k {
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32:
		return true
	}
	return false
}

func badValue(typ schema.Type, v any, why string) error {
	return fmt.Errorf("%w: %T %v for type %s: %s", ErrBadValue, v, v, typ, why)
}

// checkValue checks that non-nil v is in the Go representation of typ.
// Strict also checks the type's range (narrow ints, decimal precision);
// partition values are checked loosely, since truncate may step just
// below a type's minimum (truncate[10] of int8 -128 is -130).
func checkValue(typ schema.Type, v any, strict bool) error {
	switch typ.Kind {
	case schema.Bool:
		if _, ok := v.(bool); !ok {
			return badValue(typ, v, "want bool")
		}
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32:
		n, ok := v.(int64)
		if !ok {
			return badValue(typ, v, "want int64")
		}
		if lo, hi := typ.Kind.IntRange(); strict && (n < lo || n > hi) {
			return badValue(typ, v, "out of range")
		}
	case schema.Uint64:
		if _, ok := v.(uint64); !ok {
			return badValue(typ, v, "want uint64")
		}
	case schema.Float32, schema.Float64:
		if _, ok := v.(float64); !ok {
			return badValue(typ, v, "want float64")
		}
	case schema.Decimal:
		d, ok := v.(Decimal)
		if !ok || d.Unscaled == nil {
			return badValue(typ, v, "want partition.Decimal with a non-nil Unscaled")
		}
		if d.Scale != typ.Scale {
			return badValue(typ, v, fmt.Sprintf("scale %d, want the column's scale %d", d.Scale, typ.Scale))
		}
		if strict && typ.Precision >= 0 && typ.Precision < len(pow10) && d.Unscaled.CmpAbs(pow10[typ.Precision]) >= 0 {
			return badValue(typ, v, "more digits than the precision")
		}
	case schema.String, schema.JSON:
		if _, ok := v.(string); !ok {
			return badValue(typ, v, "want string")
		}
	case schema.Binary:
		if _, ok := v.([]byte); !ok {
			return badValue(typ, v, "want []byte")
		}
	case schema.Date:
		if _, ok := v.(int32); !ok {
			return badValue(typ, v, "want int32 days since 1970-01-01")
		}
	case schema.Time:
		n, ok := v.(int64)
		if !ok {
			return badValue(typ, v, "want int64 µs since midnight")
		}
		if n < 0 || n >= microsPerDay {
			return badValue(typ, v, "not within one day")
		}
	case schema.Timestamp:
		if _, ok := v.(int64); !ok {
			return badValue(typ, v, "want int64 µs since 1970-01-01T00:00Z")
		}
	default:
		return fmt.Errorf("%w: %s", schema.ErrUnsupportedType, typ)
	}
	return nil
}

// FormatValue renders a value of type typ, in its Go representation, as
// the partition-value string of a manifest; nil renders as nil. Integers
// are decimal text ("672" is month 2026-01), uint64 too; booleans are
// "true"/"false"; floats the shortest text that parses back exactly
// ("NaN", "+Inf", "-0"); decimals plain text at the column's scale
// ("10.50"); strings themselves; binary lower-case hex ("00010203", which
// sorts as the bytes do); dates "2017-11-16"; times "22:31:08" or
// "22:31:08.000001"; timestamps "2017-11-16T22:31:08Z" or
// "2017-11-16T22:31:08.000001Z" (UTC). Years outside 0000..9999 are
// written with more digits or a minus sign ("-0001-12-31", "12345-01-01").
// A value not in typ's representation gives ErrBadValue.
func FormatValue(typ schema.Type, v any) (*string, error) {
	if v == nil {
		return nil, nil
	}
	if err := checkValue(typ, v, false); err != nil {
		return nil, err
	}
	var s string
	switch typ.Kind {
	case schema.Bool:
		s = strconv.FormatBool(v.(bool))
	case schema.Uint64:
		s = strconv.FormatUint(v.(uint64), 10)
	case schema.Float32:
		s = strconv.FormatFloat(v.(float64), 'g', -1, 32)
	case schema.Float64:
		s = strconv.FormatFloat(v.(float64), 'g', -1, 64)
	case schema.Decimal:
		s = v.(Decimal).String()
	case schema.String, schema.JSON:
		s = v.(string)
	case schema.Binary:
		s = hex.EncodeToString(v.([]byte))
	case schema.Date:
		s = formatDate(int64(v.(int32)))
	case schema.Time:
		s = formatTime(v.(int64))
	case schema.Timestamp:
		us := v.(int64)
		day := floorDiv(us, microsPerDay)
		s = formatDate(day) + "T" + formatTime(us-day*microsPerDay) + "Z"
	default: // the integer kinds
		s = strconv.FormatInt(v.(int64), 10)
	}
	return &s, nil
}

// ParseValue parses a partition-value string written by FormatValue back
// into the Go representation of typ; nil parses as nil. Text FormatValue
// would not write gives ErrBadValue.
func ParseValue(typ schema.Type, s *string) (any, error) {
	if s == nil {
		return nil, nil
	}
	if err := typ.Validate(); err != nil {
		return nil, err
	}
	str := *s
	bad := func(err error) (any, error) {
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not a %s partition value: %v", ErrBadValue, str, typ, err)
		}
		return nil, fmt.Errorf("%w: %q is not a %s partition value", ErrBadValue, str, typ)
	}
	switch typ.Kind {
	case schema.Bool:
		switch str {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return bad(nil)
	case schema.Uint64:
		n, err := strconv.ParseUint(str, 10, 64)
		if err != nil {
			return bad(err)
		}
		return n, nil
	case schema.Float32, schema.Float64:
		bits := 64
		if typ.Kind == schema.Float32 {
			bits = 32
		}
		f, err := strconv.ParseFloat(str, bits)
		if err != nil {
			return bad(err)
		}
		return f, nil
	case schema.Decimal:
		d, err := ParseDecimal(str, typ.Scale)
		if err != nil || d.String() != str {
			return bad(nil)
		}
		return d, nil
	case schema.String, schema.JSON:
		return str, nil
	case schema.Binary:
		b, err := hex.DecodeString(str)
		if err != nil {
			return bad(err)
		}
		return b, nil
	case schema.Date:
		day, ok := parseDate(str)
		if !ok || day < math.MinInt32 || day > math.MaxInt32 {
			return bad(nil)
		}
		return int32(day), nil
	case schema.Time:
		us, ok := parseTime(str)
		if !ok {
			return bad(nil)
		}
		return us, nil
	case schema.Timestamp:
		d, rest, ok := strings.Cut(str, "T")
		day, okd := parseDate(d)
		if !ok || !okd || !strings.HasSuffix(rest, "Z") {
			return bad(nil)
		}
		us, okt := parseTime(strings.TrimSuffix(rest, "Z"))
		if !okt {
			return bad(nil)
		}
		ts := new(big.Int).Mul(big.NewInt(day), big.NewInt(microsPerDay))
		if ts.Add(ts, big.NewInt(us)); !ts.IsInt64() {
			return bad(nil)
		}
		return ts.Int64(), nil
	default: // the integer kinds
		n, err := strconv.ParseInt(str, 10, 64)
		if err != nil {
			return bad(err)
		}
		return n, nil
	}
}

// ToString renders partition value v of transform t over a source column
// of type source (so a value of type t.ResultType(source)) with
// FormatValue. nil gives nil. It returns ErrBadTransform,
// ErrTransformType or ErrBadValue.
func (t Transform) ToString(source schema.Type, v any) (*string, error) {
	rt, err := t.ResultType(source)
	if err != nil {
		return nil, err
	}
	return FormatValue(rt, v)
}

// FromString parses a partition value of transform t over a source column
// of type source, as ToString wrote it; nil gives nil. It returns
// ErrBadTransform, ErrTransformType or ErrBadValue.
func (t Transform) FromString(source schema.Type, s *string) (any, error) {
	rt, err := t.ResultType(source)
	if err != nil {
		return nil, err
	}
	return ParseValue(rt, s)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// civilFromDays converts days since 1970-01-01 to a proleptic Gregorian
// date (Howard Hinnant's algorithm, exact for every int64 day count that
// keeps the year in int64).
func civilFromDays(z int64) (y int64, m, d int) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100) // [0, 365]
	mp := (5*doy + 2) / 153                  // [0, 11], March = 0
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// daysFromCivil is the inverse of civilFromDays.
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func formatDate(days int64) string {
	y, m, d := civilFromDays(days)
	ys := strconv.FormatInt(y, 10)
	if y >= 0 && y < 1000 {
		ys = fmt.Sprintf("%04d", y)
	} else if y < 0 && y > -1000 {
		ys = fmt.Sprintf("-%04d", -y)
	}
	return fmt.Sprintf("%s-%02d-%02d", ys, m, d)
}

var dateText = regexp.MustCompile(`^(-?\d{4,})-(\d\d)-(\d\d)$`)

// parseDate reads formatDate's text, refusing anything formatDate would
// not write (so each day has one spelling).
func parseDate(s string) (int64, bool) {
	m := dateText.FindStringSubmatch(s)
	if m == nil || len(m[1]) > 14 {
		return 0, false
	}
	y, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0, false
	}
	mo, _ := strconv.Atoi(m[2])
	d, _ := strconv.Atoi(m[3])
	if mo < 1 || mo > 12 || d < 1 || d > 31 {
		return 0, false
	}
	days := daysFromCivil(y, mo, d)
	if formatDate(days) != s {
		return 0, false // 02-30, or a non-canonical year such as 01970
	}
	return days, true
}

func formatTime(us int64) string {
	sec := us / microsPerSecond
	frac := us % microsPerSecond
	s := fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
	if frac != 0 {
		s += fmt.Sprintf(".%06d", frac)
	}
	return s
}

var timeText = regexp.MustCompile(`^(\d\d):(\d\d):(\d\d)(?:\.(\d{6}))?$`)

func parseTime(s string) (int64, bool) {
	m := timeText.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	h, _ := strconv.ParseInt(m[1], 10, 64)
	mi, _ := strconv.ParseInt(m[2], 10, 64)
	se, _ := strconv.ParseInt(m[3], 10, 64)
	var frac int64
	if m[4] != "" {
		frac, _ = strconv.ParseInt(m[4], 10, 64)
		if frac == 0 {
			return 0, false // formatTime omits a zero fraction
		}
	}
	if h > 23 || mi > 59 || se > 59 {
		return 0, false
	}
	return (h*3600+mi*60+se)*microsPerSecond + frac, true
}
