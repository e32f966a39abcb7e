// Package manifest reads and writes lakesql's manifests: consolidated
// Parquet files listing every live data file of a dataset, with
// its size, record count, partition values, and per-column statistics
// aligned with field ids (value, null and NaN counts, lower/upper bounds in
// Iceberg's single-value binary encoding, compressed column sizes).
//
// A snapshot's live list is a consolidated manifest (the base) with a
// chain of delta manifests applied in order (delta.go, chain.go): each a
// commit's added entries and removed paths, so a commit to a large table
// writes little. Cache.GetChain builds a chain's list from the longest
// cached prefix, the cached base and cached deltas, so following a table's
// head reads one small delta per commit.
//
// Planning reads one list. Manifests are immutable once written (Write
// creates them with IfNotExists at
// {location}/metadata/manifest-{snapshot-id}-{nonce}.parquet), so a Cache
// keyed by path never goes stale.
//
// Integrity: Write records the number of entries in the footer's key-value
// metadata, and a CRC-32C of the whole file (pages, page headers and the
// footer; see integrity.go). Read checks the checksum over the raw bytes
// once, before decoding anything, then decodes only what DecodeOptions
// select, so a damaged manifest is an error wrapping ErrCorrupt
// (IsCorrupt), never a panic and never a silently wrong list. Version 1
// manifests (a CRC-64 of the decoded content) are still read: fully, then
// checked, then projected. The commit protocol refuses a
// commit whose parent manifest is unreadable; it is never treated as empty.
//
// The manifest's schema, one row per data file (lists are null for a nil Go
// slice; bound and partition value elements are nullable):
//
//	path string, format string, record_count int64, file_size int64,
//	uncompressed_size int64, spec_id int32, partition_values list<string?>,
//	row_id_start int64, stats_state string, stats_error string,
//	added_snapshot_id int64, sequence_number int64, field_ids list<int32>,
//	value_counts list<int64>, null_counts list<int64>, nan_counts list<int64>,
//	lower_bounds list<binary?>, upper_bounds list<binary?>,
//	bounds_exact list<bool>, column_sizes list<int64>, column_names list<string>,
//	checksum string, part_checksums binary?   (version 3; absent before)
//
// checksum is the data file's whole-file CRC-32C ("crc32c:" and 8 hex
// digits, "" when not recorded) and part_checksums its parts' CRC-32Cs,
// 4 big-endian bytes each (package datafile defines the parts and checks
// every read against them). Versions 1 and 2 read with neither recorded.
//
// Readers take one column's statistics in one file through
// DataFile.ColumnStats (colstats.go), the one reading of the aligned
// arrays: a column the file lacks is all NULL, pending or failed
// statistics say nothing.
package manifest
