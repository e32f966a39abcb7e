// Package conformance checks lakesql against SQL test scripts in the
// sqllogictest format.
//
// Two suites run from this package's tests:
//
//   - TestConformance runs a subset of SQLite's sqllogictest corpus (the
//     MySQL-regenerated dolthub mirror, kept in testdata/sqllogictest with
//     its NOTICE.md) through lakesql's MySQL-wire server with
//     the logictest library's MySQL harness. Stock GMS passes every record of
//     these files, so a failure points at lakesql's storage, type or
//     pushdown layers.
//   - TestLakesqlScripts runs lakesql's own scripts (testdata/lakesql/*.test)
//     for the lakehouse surface, both through the embedded engine.Conn and
//     over the wire, and requires identical outcomes.
//
// lakesql's scripts extend the format with one comment: a line
//
//	# error: 1146 doesn't exist
//
// right before a "statement error" record (skipif/onlyif lines may sit in
// between) names the MySQL error code and a case-insensitive fragment of
// the message that the statement must fail with. Every "statement error"
// record of a lakesql script must carry one. An expected query value
// "(any)" matches any value but NULL (for creation times and the like).
//
// A line
//
//	# explain: VectorAggregate
//
// right before a "query" record (several may stack; "# explain: !NAME"
// says absent) requires the query's plan, EXPLAIN FORMAT=TREE, to contain
// (or not) that fragment before its rows are checked. engine/rewrite's
// plan-shape tests are scripts of this kind (enginetest.RunScripts).
//
// The format's parser joins the lines of a multi-line statement without a
// separator and strips everything after a '#', so lakesql's scripts keep
// each statement on one line and avoid '#'. Query results are one value
// per line; NULL is "NULL", an empty string "(empty)", R columns print
// with three decimals.
package conformance
