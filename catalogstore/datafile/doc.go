// Package datafile is the writer and reader of lakesql's Parquet data
// files.
//
// Write is the footer-shipping writer path: Arrow record batches become one
// Parquet file whose every column carries PARQUET:field_id, and the
// file's statistics (value, null and NaN counts, Iceberg single-value
// lower/upper bounds, sizes) are taken from the writer's own footer — the
// catalog never has to open the file to plan a scan. Open reads a file back
// projected by field id: columns a file lacks (added later) read as NULL,
// renamed columns are found by id, and narrower stored types widen to the
// schema's.
//
// Bound values use this Go representation (EncodeBound, DecodeBound):
// boolean → bool; int8..int64, uint8..uint32 → int64; uint64 → uint64;
// float32, float64 → float64; decimal → *big.Int (the unscaled value; the
// scale is the column's); string, json → string; binary → []byte; date →
// int32 days since 1970-01-01; time → int64 µs since midnight; timestamp →
// int64 µs since the epoch, UTC.
package datafile
