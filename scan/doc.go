// Package scan is lakesql's read path: it plans a scan from a snapshot's
// manifest (pruning files by partition values and column bounds, without
// Parquet I/O), reads the surviving Parquet files projected by field id, in
// parallel, and turns Arrow batches into GMS rows a column at a time.
//
// Decoded files are cached by path and projection (data files are
// immutable), so repeated queries over small tables do not decode Parquet
// again.
package scan
