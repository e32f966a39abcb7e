// Package catalogstore is lakesql's catalog: workspaces, collections,
// datasets, snapshots, views and materialized views over a document
// metastore (catalogstore/meta) and an object store (catalogstore/blob).
// It knows nothing of SQL or GMS.
//
// # Model
//
// A workspace holds collections; a collection holds datasets and views. A
// dataset is a document (schema with stable field ids, partition spec,
// pointer to its current snapshot) plus Parquet data files under a
// location fixed at creation, {workspace}/{collection}/{name}-{table-uuid},
// so a rename never moves data and a recreated table never shares files
// with its predecessor. A snapshot's live data files are a consolidated
// Parquet manifest (the base) with a bounded chain of delta manifests
// applied over it, each one commit's added entries and removed paths
// (catalogstore/manifest; the policy is in manifestchain.go). Snapshots
// written before deltas have a base alone.
//
// # The commit protocol
//
//  1. Write new data files (write-once, uuid names) with their footer
//     statistics (catalogstore/datafile).
//  2. Read the parent's live list (base + chain). An unreadable parent
//     refuses the commit; it is never treated as empty.
//  3. Write the new metadata, a delta over the parent's chain or a fresh
//     base, and derive the snapshot summary from the new live list.
//  4. In ONE metastore transaction: check current-snapshot-id == parent and
//     table-uuid == expected (the incarnation guard), write the snapshot
//     document, move the pointer.
//  5. After the commit, run the hooks (refresh triggers fire for
//     user-created snapshots). Nothing after step 4 can fail the commit.
//
// An append that loses the race re-reads the new parent and retries, with
// bounded backoff: appends commute. Any other conflict is a *CommitError
// saying whether a retry is safe (Retryable) or the work must be rebuilt
// from fresh metadata (RePrepare). Files of a refused commit are never
// referenced; cleanup removes them as orphans.
//
// # Errors
//
// Caller errors are the sentinels in errors.go, matched with errors.Is;
// they are never alertable. Platform inconsistencies (an unreadable
// manifest, a summary that disagrees with its manifest) are wrapped as
// *AlertableError, found with IsAlertable.
//
// A Catalog is safe for concurrent use, and several catalogs in one or
// many processes may share the same stores.
package catalogstore
