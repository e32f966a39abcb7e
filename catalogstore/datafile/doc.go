// Package datafile is the writer and reader of lakesql's Parquet data
// files.
//
// Write is the footer-shipping writer path: Arrow record batches become one
// Parquet file (built in memory, stored with one create-only Put) whose
// every column carries PARQUET:field_id, and the file's statistics (value,
// NULL and NaN counts, Iceberg single-value lower/upper bounds merged over
// row groups, sizes) are taken from the writer's own footer metadata — the
// catalog never has to open the file to plan a scan. ReadFooter builds the
// same entry for an existing file (add_files) from its footer alone.
//
// Open reads a file back projected by field id: columns a file lacks
// (added later) read as NULL, renamed columns are found by id, narrower
// stored types widen to the schema's. Records come row group by row group;
// RowGroupStats exposes each row group's footer min/max/NULLs so a scan can
// skip row groups (SelectRowGroups, ReadOptions.RowGroups) before reading;
// RowGroupDictionary gives a wholly dictionary-encoded column chunk's
// distinct values (its dictionary page), for equality predicates.
// Opening reads the footer with a single ranged read of the file's tail.
//
// Integrity (checksum.go): Write records the file's CRC-32C and its
// parts' (footer, page index, each column chunk's dictionary and data
// pages) in the manifest entry; every read of a file whose entry records
// them is checked before anything is decoded, so a damaged file is
// ErrChecksum naming the file and part, never a wrong answer. arrow-go
// neither writes nor checks Parquet's own page CRCs.
//
// Bound values use this Go representation (EncodeBound, DecodeBound,
// ColumnStats): boolean → bool; int8..int64, uint8..uint32 → int64; uint64
// → uint64; float32, float64 → float64; decimal → *big.Int (the unscaled
// value; the scale is the column's); string, json → string; binary →
// []byte; date → int32 days since 1970-01-01; time → int64 µs since
// midnight; timestamp → int64 µs since the epoch, UTC.
//
// Encoding (Iceberg spec, Appendix D): int8/int16/int32/uint8/uint16 as
// Iceberg int (4 bytes LE, the widened value), int64/uint32/time/timestamp
// as long (8 bytes LE), uint64 as the 8 LE bytes of its value (ordered and
// decoded as unsigned; Iceberg has no unsigned type), float/double LE
// IEEE 754, date as 4-byte LE days, string UTF-8, binary raw, decimal as the
// minimal two's-complement big-endian unscaled value, boolean 0x00/0x01.
// String and binary bounds longer than MaxBoundBytes are left out (nil)
// rather than truncated, so every bound written is exact.
package datafile
