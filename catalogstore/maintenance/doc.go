// Package maintenance keeps lakesql datasets healthy: compaction, snapshot
// expiry, orphan file cleanup, statistics refresh and verification. It is
// where lakehouses lose data (a cleanup deleting live files) or rot (small
// files), so each operation is safe by construction and refuses rather
// than guesses.
//
// # The lease
//
// Compaction, expiry, orphan cleanup and statistics refresh of one dataset
// take its maintenance lease (Acquire), one document at
// {dataset}/maintenance/lease claimed in a metastore transaction and
// expiring by itself, so two maintainers never work on a dataset at once
// and a crashed one blocks others for at most its TTL. A held lease is
// ErrLeaseHeld (a *LeaseHeldError naming the holder and the expiry).
// Writers never take or wait for it: compaction commutes with appends.
//
// # Operations
//
//   - Compact: one read → select → execute → commit pass. Rules: brute
//     (merge small files of a partition) and sort_aware, alias performance
//     (rewrite files overlapping on the sort key, and runs of small
//     neighbours, as sorted files with disjoint ranges); automatic choice by
//     the dataset's sort order. Sizes compare uncompressed estimates against
//     TargetSizeBytes / MinSizeBytes / MaxSizeBytes (Config overrides them);
//     the memory budget is Config.MemoryBudget (the binary: LAKESQL_COMPACTION_RAM_MB). Outputs keep
//     their partition; the commit is operation=compact, not user-created,
//     only if rows balance, and is re-based over concurrent appends.
//     The delete_debt rule is answered with ErrNoDeleteDebt (below).
//   - Expire: tombstones snapshots older than an age (never the head, the
//     last user-created snapshot, tagged snapshots, or those a consumer
//     offset needs), then purges tombstones past a grace period.
//     ExpireByPolicy takes the age and retain-last from the dataset's
//     properties snapshot_retention ('7d') and snapshot_retain_last
//     (default 1), checked when set (SetRetentionProperty) and again when
//     read: a bad value refuses the expiry, it is never guessed at.
//   - RemoveOrphans: deletes unreferenced files under the dataset's
//     location, only after two sightings a day apart, older than a safety
//     window, re-checking liveness before each delete; an unreadable
//     retained manifest stops it.
//   - RefreshStatistics: rebuilds the manifest's statistics from the files'
//     footers, all or nothing.
//   - Verify: reads every snapshot's manifest and checks summaries, totals
//     and file sizes, and the dataset's place in the refresh graph (no
//     cycle along triggers or source-tables, triggers that name existing
//     views reading the dataset, whole materialized-view registrations);
//     findings are alertable.
//
// # Delete debt
//
// In merge-on-read lakehouses a row DELETE writes delete files (position
// or equality deletes) that every reader applies until a compaction folds
// them into rewritten data files: that backlog is delete debt, and a
// delete-debt rule picks files by how many of their rows are deleted.
// lakesql's DELETE is copy-on-write: the commit replaces each file holding
// a deleted row by a rewrite without it, and no delete file exists. Every
// live file is therefore 100% live and no file carries delete debt, so the
// rule has nothing to select. What a DELETE does leave is smaller
// rewritten files; they are small files like any other, which brute (and
// sort_aware, for small neighbours) merges. Compact with
// StrategyDeleteDebt returns ErrNoDeleteDebt saying this, and changes
// nothing; the rule becomes meaningful if merge-on-read deletes are added.
//
// # Row ids
//
// Each data file's RowIDStart is the row id of its first row; its rows
// have RowIDStart, RowIDStart+1, … and the commit hands out new ids from
// the dataset's next-row-id to the files it adds. Files carry no row-id
// column, so a compaction output can keep its rows' ids only if they form
// one run. Brute streams a bin's files in row-id order and a sorted bin
// carries the ids through the sort; an output whose rows are one run
// keeps its first row's id (so appends compacted in order keep their
// ids), and any other output has RowIDStart -1, for which the commit
// assigns new ids. Either way the live files' id ranges stay disjoint.
//
// # Documents
//
// Besides the lease, maintenance reads and writes these documents below the
// dataset's incarnation (catalogstore.Dataset.DocRoot):
//
//	snapshots/{id}               "expired": true and "expired-at" mark a tombstone
//	tags/{name}                  "snapshot-id": a tagged snapshot is kept
//	offsets/{consumer}           "snapshot-id" (and "table-uuid"): the consumer
//	                             needs that snapshot and every later one
//	maintenance/orphan-quarantine  first sightings of orphan files
//
// Times are the catalog's clock (catalogstore.Options.Now), the clock
// snapshot timestamps come from; tests pin it.
//
// Every function is safe for concurrent use; the lease serialises the
// operations that change a dataset.
package maintenance
