// Package rewrite holds lakesql's analyzer rules over GMS plans and the
// plan nodes they install.
//
// The cut: everything here rewrites a plan GMS has already analyzed (one
// rule, decorrelate, the planbuilder's plan before GMS's analysis) and
// keeps the query's result unchanged, only how it is computed. Each rule
// leaves the plan alone unless it can prove the rewrite exact, so GMS's
// row path is always the fallback:
//
//   - fold.go: string literals compared with DATE/DATETIME columns become
//     typed literals once per query.
//   - rules.go: Filter conjuncts are pushed into the lakesql table, which
//     prunes files and row groups with them (the Filter stays); AddRules
//     installs every rule in order.
//   - metaanswer.go: COUNT/MIN/MAX over whole files answered from the
//     manifest's statistics (StatsAnswer).
//   - vectorize.go: GROUP BY aggregates over one table run on column
//     vectors (VectorAggregate).
//   - vectorjoin.go: aggregates over a tree of inner equi-joins of single
//     tables, with the semi and anti joins of EXISTS, IN and NOT EXISTS,
//     run on vectors (VectorJoinAggregate): the largest lakesql table is
//     probed through a hash table per other table (vectorjoin_tree.go
//     flattens the tree and orders the build sides, vectorjoin_scope.go
//     resolves columns), each read by a vectorised scan when its filters
//     allow, else on the row path. A leaf may also be a row-path node
//     without joins, held as a build side (vectorjoin_derived.go: a
//     derived table, an IN subquery's GROUP BY ... HAVING). Build sides
//     are charged to the query's memory budget; one beyond it is joined a
//     hash partition at a time (scan.RunPartitioned). A derived table
//     over the join (TPC-H Q07-Q09) is seen through (vectorjoin_alias.go,
//     which also makes expressions of one build side's columns derived
//     columns GMS evaluates per build row, vectorjoin_derive.go, and
//     rewrites aggregates and keys mixing sides for scan's tuple
//     expressions).
//   - vectorize_unread.go: a GroupBy under Project(Having) drops the
//     non-grouped columns nothing above reads, so it can run on vectors.
//   - topn.go: ORDER BY ... LIMIT over one table keeps a bounded heap per
//     file (TopNScan), and plain LIMITs are pushed into the scan.
//   - decorrelate.go: a WHERE comparison with a scalar aggregate subquery,
//     uncorrelated or correlated by column equalities, becomes a join with
//     a derived table grouped by the correlation keys (scalarsubqueryN),
//     which GMS then plans as a hash join instead of re-running the
//     subquery per row.
//   - orfactor.go: conjuncts common to every branch of an OR move out of
//     it, and a filter's OR adds the single-table ORs it implies, before
//     GMS plans joins (it then sees the equi-join).
//   - hashjoin.go: joins GMS leaves as nested loops (a residual beside
//     the key equality, semi/anti joins, trees its reorderer refuses) get
//     a hash table on their key columns (KeyedLookup; hashkey.go decides
//     how each key's values are normalised, or that they cannot be).
//   - semipush.go: a semi or anti join whose condition reads one input of
//     the join below it moves down to that input.
//   - prunecols.go: lakesql tables below physical joins read only the
//     columns the plan uses (GMS's pruning stops at those joins).
//     lakesql_join_rewrites = 0 turns these four off.
//   - coster.go: not a rule but GMS's join coster (memo.Coster): it
//     estimates each memo group's rows from the manifests' statistics
//     (estimate.go; filters in selectivity.go, joins by their keys'
//     distinct counts in joinest.go) and prices hash joins by what they
//     read and build, so GMS orders joins and picks build sides by the
//     data. lakesql_stats_coster = 0 plans with GMS's own coster.
//
// explain.go exposes the vectorised nodes to the engine's EXPLAIN
// rendering (VectorScan: the table read and the replaced row-path plan);
// sysvar.go reads the session variables that tune or switch off the
// rewrites.
//
// Tests: testdata/*.test are sqllogictest scripts whose queries name the
// plan node they must (or must not) use ("# explain:", see package
// conformance) next to the rows they return, each usually paired with a
// row-path twin that must return the same rows; a new rewrite's test is
// such a file. The Go tests cover what text cannot: random data compared
// value and Go type against the row path.
//
// The engine package assembles sessions, connections and the server and
// calls AddRules when it builds GMS's analyzer; rules that need the
// engine's session (egress protection) stay there. The scan kernels these
// nodes call live in package scan.
package rewrite
