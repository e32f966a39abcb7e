package blob

import "errors"

// These errors can be returned by any Store method.
var (
	// ErrNotFound: no object at the key.
	ErrNotFound = errors.New("object not found")
	// ErrExists: Put with IfNotExists found an object at the key.
	ErrExists = errors.New("object already exists")
	// ErrBadURI: Open could not parse or does not support the URI.
	ErrBadURI = errors.New("bad object store URI")
	// ErrBadKey: the key is not a clean relative slash path (empty, absolute,
	// "." or ".." segments, empty segments, control characters) or is
	// reserved by the backend. Nothing was read or written.
	ErrBadKey = errors.New("bad object key")
)
