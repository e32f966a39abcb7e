// Package jobs runs an engine's background work: materialized-view refresh
// jobs and statistics hydration.
//
// The cut: what runs outside the statement that caused it. A user commit
// on a dataset with triggers writes a jobs/{execution-id} document and
// enqueues it (jobs.go wires catalogstore's trigger hook to the queue);
// the queue (queue.go: in-process pool or inline; httpqueue.go: a signed
// POST to `lakesql worker --listen`, whose handler is worker.go, checking
// tokens with token.go) eventually calls the engine's runner, which runs
// the view's SQL. The refresh itself stays in package engine, since it
// runs SQL through GMS with the job author's rights; this package sees it
// as a Runner. hydrate.go fills deferred file statistics after commits
// that add pending files. Alerts raised on the way go to the sinks of
// package alerts.
//
// Configuration arrives as a Config value; nothing here reads the
// environment (cmd/lakesql does, once).
package jobs
