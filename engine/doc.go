// Package engine assembles lakesql: GMS over the catalog, the provider and
// the DDL parser.
//
// It holds what is per process or per connection: Open and Config (the
// stores, the analyzer, the job machinery), Session (workspace, staged
// writes, the transaction hooks GMS calls; a Session holds its Engine, so
// SQL it runs on the user's behalf — a materialized view's refresh or
// plan — reaches GMS without any global), Conn (embedded use), Server (the
// MySQL wire), users, the stored procedures, and egress protection (an
// analyzer rule that needs the session).
//
// Every statement's context carries a fresh query memory budget
// (querymem.go: lakesql_query_memory, package budget).
//
// Three concepts live in sub-packages: rewrite (the analyzer rules and the
// vectorised plan nodes they install), bounded (GMS's memory-holding row
// operators, run within the budget: spilling sort and hash join) and jobs
// (refresh queues, the HTTP worker and background statistics hydration). The refresh itself is here
// (mv.go), since it runs SQL with the job author's rights.
//
// Nothing here reads the environment: cmd/lakesql reads it once into
// Config.
package engine
