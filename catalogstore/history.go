package catalogstore

// History: time travel resolution (timetravel.go), tags (tags.go),
// rollback (rollback.go), the change feed plan (changefeed.go) and
// consumer offsets (offsets.go). This file holds their shared errors.
//
// Document layout (below the dataset document, so a rename carries them
// and a drop removes them):
//
//	{dataset}/tags/{name}         Tag: a name pinning one snapshot
//	{dataset}/offsets/{consumer}  Offset: a consumer's position in the change
//	                              feed, with the table uuid it belongs to
//
// Offsets carry the table uuid and count only for that incarnation: a table
// dropped and recreated under the same name has a new uuid, so even an
// offset document left behind by an interrupted drop is never inherited as
// the new table's cursor. Expiry (catalogstore/maintenance) reads tags and
// offsets in its own transaction from these same documents.

// kindError is a history error that is also one of the mapped caller
// errors (so it reaches clients with a specific MySQL code).
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// History errors. Each also matches a base sentinel with errors.Is.
var (
	// ErrTagNotFound: no tag of that name (also ErrSnapshotNotFound).
	ErrTagNotFound error = &kindError{"tag not found", ErrSnapshotNotFound}
	// ErrTagExists: a tag of that name already exists (also ErrBadValue).
	ErrTagExists error = &kindError{"tag already exists", ErrBadValue}
	// ErrOffsetRegression: a consumer offset may only move forward (also
	// ErrBadValue).
	ErrOffsetRegression error = &kindError{"offset regression", ErrBadValue}
	// ErrChangesUnavailable: the change feed cannot replay the window (it
	// reaches below the retention floor or crosses a truncate); the
	// consumer must reconcile from a full scan (also ErrSnapshotNotFound).
	ErrChangesUnavailable error = &kindError{"changes unavailable", ErrSnapshotNotFound}
)
