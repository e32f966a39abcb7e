// Package txn is lakesql's write transaction below SQL: the staged rows,
// files and deletes of a session's open transaction, per dataset, and the
// catalog commits that make them visible. It works on Arrow records of the
// catalog schema (arrowrow builds them from GMS rows) and knows nothing of
// GMS, so DML is testable without SQL. The shape follows iceberg-go's
// table/transaction.go: a Txn stages work, Commit turns it into snapshots.
//
// # Staging
//
// A Txn holds one Table per dataset written. Each statement runs between
// Table.Begin and Table.Complete (or Table.Discard, which forgets the
// statement's work only). Table.Append stages rows, split by the dataset's
// partition spec and written out as a data file every FlushRows rows of a
// partition, so a large INSERT … SELECT streams; smaller batches stay in
// memory until COMMIT. Table.Delete stages full rows to delete, matched as
// a multiset (deleting one of two equal rows keeps the other), and
// Table.Truncate stages the removal of every row.
//
// # Pinning
//
// A Table pins the dataset's incarnation (its table uuid) and read
// snapshot at the transaction's first touch. A later statement that finds
// another incarnation under the same name is refused, and COMMIT refuses a
// transaction any of whose tables was dropped or recreated since, with an
// *IncarnationError (wrapping catalogstore.ErrIncarnationChanged): its
// staged rows belong to a table that no longer exists.
//
// # Commit
//
// Commit makes one catalog commit for one dataset, and one catalog
// CommitAll (all datasets or none) for several, after checking every
// pinned incarnation. Deletes apply first to the
// transaction's own staged rows (a row inserted and deleted in one
// transaction is never written), then copy-on-write to the live files that
// hold the rest: such a file is rewritten without the deleted rows and the
// commit replaces it. Files of a refused commit are orphans for cleanup.
//
// A Txn is safe for concurrent use; a session runs one statement at a
// time.
package txn
