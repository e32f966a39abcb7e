// Package engine assembles lakesql: GMS over the catalog, the provider and
// the DDL parser.
//
// It holds what is per process or per connection: Open and Config (the
// stores, the analyzer, the job machinery), Session (workspace, staged
// writes, the transaction hooks GMS calls; a Session holds its Engine, so
// SQL it runs on the user's behalf — a materialized view's refresh or
// plan — reaches GMS without any global), Conn (embedded use), Server (the
// MySQL wire; a hung-up client's statement is cancelled, clientgone.go; a
// panicking statement fails alone, panic.go), users and grants, the stored
// procedures (proc_*.go), and the rules that need the session or Config: egress protection, server-file privileges
// (filepriv.go), all-or-nothing CREATE TABLE … AS SELECT (ctas.go) and
// re-running an autocommit statement that lost a commit race (rerun.go).
// EXPLAIN and EXPLAIN ANALYZE render here (explain.go,
// explain_render.go), as does the Iceberg REST catalog's handler with its
// tokens (icebergrest.go); errors.go turns any error into the MySQL error
// a client sees (codes from package sqlerr).
//
// Every statement's context carries a fresh query memory budget
// (querymem.go: lakesql_query_memory, package budget); memrelease.go
// returns the heap a finished query grew once the engine is idle.
//
// Three concepts live in sub-packages: rewrite (the analyzer rules and the
// vectorised plan nodes they install), bounded (GMS's memory-holding row
// operators, run within the budget: spilling sort and hash join) and jobs
// (refresh queues, the HTTP worker and background statistics hydration).
// The refresh itself is here (mv.go), since it runs SQL with the job
// author's rights. enginetest holds the SQL-level test helpers they share.
//
// Nothing here reads the environment: cmd/lakesql reads it once into
// Config.
package engine
