package meta

import "errors"

// These errors can be returned by any Store or Tx method.
var (
	// ErrNotFound: the document does not exist.
	ErrNotFound = errors.New("document not found")
	// ErrExists: Tx.Create found a document at the path.
	ErrExists = errors.New("document already exists")
	// ErrBadPath: the path is not a well-formed document or collection path.
	ErrBadPath = errors.New("bad metastore path")
	// ErrReadAfterWrite: a transaction read after it had staged a write;
	// Firestore forbids it, so both backends refuse it.
	ErrReadAfterWrite = errors.New("transaction read after write")
	// ErrContention: a transaction could not commit after its retries
	// because other writers kept changing what it read. Safe to retry.
	ErrContention = errors.New("metastore transaction contention")
	// ErrNestedArray: a written value holds an array directly in an
	// array (CheckValue).
	ErrNestedArray = errors.New("an array may not hold an array directly (Firestore refuses it)")
)
