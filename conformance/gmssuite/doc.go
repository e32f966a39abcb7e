// Package gmssuite runs GMS's own engine test suites (enginetest.TestQueries,
// TestScripts, …) against lakesql: every table the suites create is a real
// lakesql dataset, and every query goes through lakesql's engine.
//
// Each suite runs in a child process (the test binary re-run with
// -test.v=test2json), so one suite's cases are judged together: a case
// passes, or it fails with a difference that testdata/skiplist.txt explains
// (a reason, the cases it covers and the difference they show). A failure
// the list does not explain fails the suite, and so does a line of the list
// that explains nothing.
//
// This file's package holds what the test and a maintainer need outside the
// test binary: reading a run (run.go), a case's first difference
// (firstdiff.go) and the skip list (skiplist.go).
package gmssuite
