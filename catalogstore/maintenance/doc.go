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
//     the memory budget comes from LAKESQL_COMPACTION_RAM_MB. Outputs keep
//     their partition; the commit is operation=compact, not user-created,
//     only if rows balance, and is re-based over concurrent appends.
//   - Expire: tombstones snapshots older than an age (never the head, the
//     last user-created snapshot, tagged snapshots, or those a consumer
//     offset needs), then purges tombstones past a grace period.
//   - RemoveOrphans: deletes unreferenced files under the dataset's
//     location, only after two sightings a day apart, older than a safety
//     window, re-checking liveness before each delete; an unreadable
//     retained manifest stops it.
//   - RefreshStatistics: rebuilds the manifest's statistics from the files'
//     footers, all or nothing.
//   - Verify: reads every snapshot's manifest and checks summaries, totals
//     and file sizes; findings are alertable.
//
// # Documents
//
// Besides the lease, maintenance reads and writes these documents below the
// dataset document (catalogstore.DatasetDocPath):
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
