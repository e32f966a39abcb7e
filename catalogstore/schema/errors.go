package schema

import "errors"

// These errors are returned when a schema or a type is refused.
var (
	// ErrUnsupportedType: a type outside the closed vocabulary.
	ErrUnsupportedType = errors.New("unsupported column type")
	// ErrBadColumn: a column name is invalid, reserved (_lake…) or
	// duplicated.
	ErrBadColumn = errors.New("bad column")
)
