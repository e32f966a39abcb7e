// Package budget accounts the memory one query holds against the query's
// budget (the session variable lakesql_query_memory).
//
// The model: every operator that keeps rows or hash tables for the
// length of a query (hash-join build sides, aggregation tables, sorts,
// materialised subqueries) charges what it keeps to the Account attached
// to the query's context before it keeps it, and gives it back when it
// lets go. A charge that would take the query past its limit fails with
// an *ExceededError (errors.Is ErrExceeded) and charges nothing: the
// operator then spills to disk where it can, or fails the query with that
// error. The Account lives and dies with the query's context, so a failed
// query leaves no charge behind. Every Account of a server draws what it
// charges from the server's Pool as well (lakesql_server_memory), so
// concurrent queries together stay under the server's cap; the query's
// end (Close) gives back what its operators still hold.
//
// Sizes are estimates of the Go heap an operator's structures occupy
// (headers, values, hash-table slots), not measurements; they are close
// enough to keep a query within a small multiple of its budget and cheap
// enough to take per row.
package budget
