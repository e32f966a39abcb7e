package partition

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// These errors are returned when a transform or a partition spec is
// refused (ParseTransform, Spec.Validate, Transform.ResultType).
var (
	// ErrBadTransform: a transform string is not in the catalog spelling
	// ("identity", "bucket[N]", "truncate[W]", "year", "month", "day",
	// "hour", "void"), or a Transform is the zero value.
	ErrBadTransform = errors.New("bad partition transform")
	// ErrTransformType: a transform cannot apply to its source column's
	// type. The error is a *TransformTypeError naming transform, column and
	// type.
	ErrTransformType = errors.New("partition transform cannot apply to type")
	// ErrUnknownColumn: a partition field's source-id is not a column of
	// the schema.
	ErrUnknownColumn = errors.New("partition source column not found")
	// ErrBadSpec: a spec is malformed: a field id below 1000 or repeated,
	// an empty or repeated field name, a name that hides another column,
	// or the same transform of the same column twice.
	ErrBadSpec = errors.New("bad partition spec")
)

// These errors are returned when a value is refused (Transform.Apply,
// Hash, FormatValue, ParseValue and the ToString/FromString methods).
var (
	// ErrBadValue: a value is not in the Go representation of its type (see
	// the package documentation), is out of the type's range, is a string
	// that is not valid UTF-8 given to truncate, or is a partition-value
	// string that does not parse.
	ErrBadValue = errors.New("bad partition source value")
	// ErrOverflow: a transform's result does not fit its representation:
	// truncate of an int64 within W of math.MinInt64, or hour of a
	// timestamp more than 2^31 hours from 1970 (past about year 246,940).
	ErrOverflow = errors.New("partition transform overflow")
)

// TransformTypeError reports a transform applied to a type it does not
// accept. It matches ErrTransformType with errors.Is.
type TransformTypeError struct {
	Transform Transform
	Column    string // empty when no column is known (Transform.Apply)
	Type      schema.Type
}

func (e *TransformTypeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "transform %s cannot apply to ", e.Transform)
	if e.Column != "" {
		fmt.Fprintf(&b, "column %q of ", e.Column)
	}
	fmt.Fprintf(&b, "type %s (%s accepts: %s)", e.Type, e.Transform.kind, acceptList(e.Transform.kind))
	return b.String()
}

// Unwrap makes errors.Is(err, ErrTransformType) hold.
func (e *TransformTypeError) Unwrap() error { return ErrTransformType }
