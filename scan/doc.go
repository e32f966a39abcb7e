// Package scan is lakesql's read path: it plans a scan from a snapshot's
// manifest (pruning files by partition values and column bounds, without
// Parquet I/O), reads the surviving Parquet files projected by field id, in
// parallel, and turns Arrow batches into GMS rows a column at a time.
//
// Pruning narrows a scan in four steps, each deciding only what it can
// prove from exact statistics: files by the manifest's bounds and
// partition values (pruner.go, partprune.go), row groups by footer
// min/max (rowgroups.go) and, for = and IN, by their dictionaries
// (dictfilter.go), and pages by the page index (pages.go).
//
// Besides rows, scan runs whole operators over column vectors, so GMS
// sees only their result rows: aggregates with hash GROUP BY (vector.go,
// agg.go, distinct.go; typed filter kernels in kernels.go and
// expressions in expr.go, CASE in exprcase.go, EXTRACT(YEAR) in
// expryear.go), aggregates over joins probing a table's files
// through a chain of in-memory hash tables (join.go: inner, semi and anti
// build sides, keyed on probe columns or earlier sides' columns, in
// joinprobe.go; expressions over several sides' columns evaluated on
// values gathered by join tuple, jointuple.go; conditions over several
// build sides, joinpost.go), whose keys prune the probe scan as runtime filters
// (joinfilter.go), with build sides read by filtered scans into memory
// (collect.go), and ORDER BY ... LIMIT (topn.go).
//
// Decoded files are cached by path and projection (data files are
// immutable), so repeated queries over small tables do not decode Parquet
// again; the engine also shares a footer cache and a pool of decode
// buffers (catalogstore/datafile) across queries.
//
// A statement's context may carry Profiles (EXPLAIN ANALYZE: each scan
// records the files and row groups each pruning step ruled out, the rows
// decoded, the bytes fetched, its time and the peak of its decode
// buffers; profile.go) and a Progress (files planned and done, for the
// REPL's bar; progress.go). Without them scans count nothing extra.
package scan
