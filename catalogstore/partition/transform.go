package partition

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// TransformKind names a transform family.
type TransformKind string

// The Iceberg transforms. Anything else is refused by ParseTransform.
const (
	KindIdentity TransformKind = "identity"
	KindBucket   TransformKind = "bucket"   // bucket[N], N in 1..MaxInt32
	KindTruncate TransformKind = "truncate" // truncate[W], W in 1..MaxInt32
	KindYear     TransformKind = "year"
	KindMonth    TransformKind = "month"
	KindDay      TransformKind = "day"
	KindHour     TransformKind = "hour"
	KindVoid     TransformKind = "void"
)

// Transform is one partition transform. It is a comparable value; the zero
// Transform is invalid (ErrBadTransform). Build one with ParseTransform,
// Bucket, Truncate or the Identity … Void variables.
type Transform struct {
	kind  TransformKind
	param int // N of bucket[N], W of truncate[W]; 0 otherwise
}

// The transforms without a parameter.
var (
	Identity = Transform{kind: KindIdentity}
	Year     = Transform{kind: KindYear}
	Month    = Transform{kind: KindMonth}
	Day      = Transform{kind: KindDay}
	Hour     = Transform{kind: KindHour}
	Void     = Transform{kind: KindVoid}
)

// Bucket returns bucket[n]. It panics unless 1 <= n <= math.MaxInt32; use
// ParseTransform for untrusted input.
func Bucket(n int) Transform {
	if n < 1 || n > math.MaxInt32 {
		panic(fmt.Sprintf("partition: bucket count %d out of range 1..%d", n, math.MaxInt32))
	}
	return Transform{kind: KindBucket, param: n}
}

// Truncate returns truncate[w]. It panics unless 1 <= w <= math.MaxInt32;
// use ParseTransform for untrusted input.
func Truncate(w int) Transform {
	if w < 1 || w > math.MaxInt32 {
		panic(fmt.Sprintf("partition: truncate width %d out of range 1..%d", w, math.MaxInt32))
	}
	return Transform{kind: KindTruncate, param: w}
}

// ParseTransform parses the catalog spelling of a transform: "identity",
// "bucket[16]", "truncate[10]", "year", "month", "day", "hour", "void".
// Case and surrounding spaces are ignored; N and W are decimal digits in
// 1..2147483647. Anything else gives ErrBadTransform.
func ParseTransform(s string) (Transform, error) {
	in := s
	s = strings.ToLower(strings.TrimSpace(s))
	switch k := TransformKind(s); k {
	case KindIdentity, KindYear, KindMonth, KindDay, KindHour, KindVoid:
		return Transform{kind: k}, nil
	}
	name, arg, ok := strings.Cut(s, "[")
	if ok && strings.HasSuffix(arg, "]") && (name == string(KindBucket) || name == string(KindTruncate)) {
		if n, ok := parseParam(strings.TrimSuffix(arg, "]")); ok {
			return Transform{kind: TransformKind(name), param: n}, nil
		}
		return Transform{}, fmt.Errorf("%w: %q: %s needs a whole number in 1..%d", ErrBadTransform, in, name, math.MaxInt32)
	}
	return Transform{}, fmt.Errorf("%w: %q (supported: identity, bucket[N], truncate[W], year, month, day, hour, void)", ErrBadTransform, in)
}

// parseParam parses 1..MaxInt32 written as plain decimal digits.
func parseParam(s string) (int, bool) {
	if s == "" || len(s) > 10 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || n > math.MaxInt32 {
		return 0, false
	}
	return int(n), true
}

// String renders the transform in the catalog spelling ParseTransform
// reads; the zero Transform renders as "".
func (t Transform) String() string {
	switch t.kind {
	case KindBucket, KindTruncate:
		return fmt.Sprintf("%s[%d]", t.kind, t.param)
	}
	return string(t.kind)
}

// Kind returns the transform family.
func (t Transform) Kind() TransformKind { return t.kind }

// Param returns N of bucket[N] and W of truncate[W], and 0 otherwise.
func (t Transform) Param() int { return t.param }

// IsZero reports whether t is the zero (invalid) Transform.
func (t Transform) IsZero() bool { return t == Transform{} }

// MarshalText writes the catalog spelling, so a Transform is a JSON string.
func (t Transform) MarshalText() ([]byte, error) {
	if err := t.valid(); err != nil {
		return nil, err
	}
	return []byte(t.String()), nil
}

// UnmarshalText reads the catalog spelling with ParseTransform.
func (t *Transform) UnmarshalText(b []byte) error {
	p, err := ParseTransform(string(b))
	if err != nil {
		return err
	}
	*t = p
	return nil
}

func (t Transform) valid() error {
	switch t.kind {
	case KindIdentity, KindYear, KindMonth, KindDay, KindHour, KindVoid:
		if t.param == 0 {
			return nil
		}
	case KindBucket, KindTruncate:
		if t.param >= 1 && t.param <= math.MaxInt32 {
			return nil
		}
	}
	return fmt.Errorf("%w: %q", ErrBadTransform, t.String())
}

// Source types each transform accepts: a closed list. uint64 is left out
// of bucket and truncate because Iceberg has no unsigned 64-bit type: its
// values above MaxInt64 have no long to hash or truncate as.
var (
	intKinds   = []schema.Kind{schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32}
	allButJSON = []schema.Kind{schema.Bool, schema.Int8, schema.Int16, schema.Int32, schema.Int64,
		schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64, schema.Float32, schema.Float64,
		schema.Decimal, schema.String, schema.Binary, schema.Date, schema.Time, schema.Timestamp}
	accepted = map[TransformKind][]schema.Kind{
		KindIdentity: allButJSON,
		KindBucket:   append(append([]schema.Kind{}, intKinds...), schema.Decimal, schema.Date, schema.Time, schema.Timestamp, schema.String, schema.Binary),
		KindTruncate: append(append([]schema.Kind{}, intKinds...), schema.Decimal, schema.String, schema.Binary),
		KindYear:     {schema.Date, schema.Timestamp},
		KindMonth:    {schema.Date, schema.Timestamp},
		KindDay:      {schema.Date, schema.Timestamp},
		KindHour:     {schema.Timestamp},
		KindVoid:     append(append([]schema.Kind{}, allButJSON...), schema.JSON),
	}
)

func acceptList(k TransformKind) string {
	var names []string
	for _, kind := range accepted[k] {
		if kind == schema.Decimal {
			names = append(names, "decimal(P,S)")
		} else {
			names = append(names, string(kind))
		}
	}
	return strings.Join(names, ", ")
}

// Accepts reports whether t can apply to a column of type typ.
func (t Transform) Accepts(typ schema.Type) bool {
	if t.valid() != nil || typ.Validate() != nil {
		return false
	}
	for _, k := range accepted[t.kind] {
		if k == typ.Kind {
			return true
		}
	}
	return false
}

// check returns nil, ErrBadTransform or a *TransformTypeError.
func (t Transform) check(column string, typ schema.Type) error {
	if err := t.valid(); err != nil {
		return err
	}
	if !t.Accepts(typ) {
		return &TransformTypeError{Transform: t, Column: column, Type: typ}
	}
	return nil
}

// ResultType returns the type of t's partition values for a source column
// of type source: the source type for identity, truncate and void; int32
// for bucket, year, month, day and hour (values are epoch-relative counts:
// years since 1970, months since 1970-01, days since 1970-01-01, hours
// since 1970-01-01T00:00Z). It returns ErrBadTransform or a
// *TransformTypeError (ErrTransformType).
func (t Transform) ResultType(source schema.Type) (schema.Type, error) {
	if err := t.check("", source); err != nil {
		return schema.Type{}, err
	}
	switch t.kind {
	case KindIdentity, KindTruncate, KindVoid:
		return source, nil
	}
	return schema.Type{Kind: schema.Int32}, nil
}
