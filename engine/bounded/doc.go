// Package bounded runs GMS's memory-holding row operators within the
// query's memory budget (package budget): it is GMS's exec-builder
// override (rowexec.NewOverrideBuilder), so one hook covers every plan,
// subqueries included, without patching GMS.
//
//   - sort.go: ORDER BY (plan.Sort) charges the rows it buffers; past the
//     budget it sorts them into a run on disk and goes on, then merges the
//     runs (an external merge sort, stable like GMS's sort.Stable, so the
//     answer is the one GMS gives in memory).
//   - hashlookup.go: the build side of any other row-path hash join
//     (plan.HashLookup: semi, anti, nested scopes) charges every row it
//     keeps; past the budget the query fails with budget.ErrExceeded.
//   - hashjoin.go: a top-scope inner or left outer row-path hash join
//     builds its table within the budget; past it, it becomes a grace
//     hash join: both sides partitioned to disk by key hash and joined a
//     partition at a time.
//   - groupby.go: GROUP BY charges every group it creates.
//   - cached.go: a materialised subquery (plan.CachedResults) charges what
//     it caches; past the budget it stops caching and re-runs its child,
//     as GMS does when its memory manager runs out.
//   - distinct.go: DISTINCT (plan.Distinct, and the set operations')
//     charges every row hash it remembers; past the budget it partitions
//     the rest of its input to disk by hash and makes each partition
//     distinct in turn.
//   - setop.go: UNION / INTERSECT / EXCEPT; INTERSECT's and EXCEPT's
//     counts of the right side are charged (past the budget: fail).
//   - window.go: a window function's input, which GMS keeps whole, is
//     charged as it is read (past the budget: fail).
//   - recursive.go: a recursive CTE's working table, next iteration and
//     remembered hashes are charged (past the budget: fail).
//   - shared.go: equal derived tables of one query (a CTE referenced
//     twice) are evaluated once and replayed, charged; past the budget
//     each use runs again.
//   - filter.go: WHERE and HAVING hold nothing, but GMS's filter loops
//     inside one Next until a row passes; it reads its child through a
//     context check, as GROUP BY and an in-memory sort hand out their
//     rows with one.
//
// Every build loop checks the query's context, so KILL QUERY stops it.
package bounded
