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
	// ErrNoSpace: the store is full (no space left on the device, a quota
	// exceeded). Nothing was written; freeing space and retrying is safe.
	ErrNoSpace = errors.New("storage is full")
	// ErrReadOnly: the store cannot be written (a read-only file system,
	// no write permission). Nothing was written.
	ErrReadOnly = errors.New("storage is read-only")
)
