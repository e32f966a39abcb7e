#!/usr/bin/env bash
# make demo: load a TPC-H-shaped sample (SF 0.01 row counts: 15,000 orders,
# about 60,000 line items; generated in Go by scripts/demodata, the same
# every run) into a warehouse and show, in well under a minute: a join and
# an aggregate, an update and time travel to before it, a materialized
# view refreshed by the commit, EXPLAIN ANALYZE with pruning, and
# compaction. It never waits for input, so CI can run it.
#
# Settings (environment):
#   LAKESQL_DEMO_FLAGS  flags for every lakesql run (default: --warehouse lake);
#                       scripts/demo-cloud.sh passes the Firestore and GCS ones
#   LAKESQL_DEMO_SCALE  the TPC-H scale factor of the sample (default 0.01)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bin/lakesql
[ -x "$bin" ] || go build -o "$bin" ./cmd/lakesql
read -r -a flags <<<"${LAKESQL_DEMO_FLAGS:---warehouse lake}"
# Refreshes run in the committing statement, after its commit, so the
# script sees the refreshed view at once (the default is a background pool).
export LAKESQL_JOBS=inline
sql() { "$bin" "${flags[@]}" -e "USE tpch; $1"; }
step() { printf '\n== %s\n' "$*"; }
t0=$(date +%s)

step "load: a TPC-H-shaped sample, generated in Go (scripts/demodata)"
"$bin" "${flags[@]}" -e "DROP DATABASE IF EXISTS tpch" >/dev/null
go run ./scripts/demodata -scale "${LAKESQL_DEMO_SCALE:-0.01}" | "$bin" "${flags[@]}" >/dev/null
sql "SELECT (SELECT COUNT(*) FROM customer) AS customers, (SELECT COUNT(*) FROM orders) AS orders, (SELECT COUNT(*) FROM lineitem) AS lineitems"

step "an aggregate (TPC-H Q1, vectorised over the column vectors)"
sql "SELECT l_returnflag, l_linestatus, SUM(l_quantity) AS sum_qty, SUM(l_extendedprice) AS sum_base_price,
  AVG(l_discount) AS avg_disc, COUNT(*) AS count_order
FROM lineitem WHERE l_shipdate <= DATE '1998-09-02'
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"

step "a five-way join (TPC-H Q5): revenue by Asian nation in 1994"
sql "SELECT n_name, SUM(l_extendedprice * (1 - l_discount)) AS revenue
FROM customer JOIN orders ON c_custkey = o_custkey JOIN lineitem ON l_orderkey = o_orderkey
  JOIN nation ON c_nationkey = n_nationkey JOIN region ON n_regionkey = r_regionkey
WHERE r_name = 'ASIA' AND o_orderdate >= DATE '1994-01-01' AND o_orderdate < DATE '1995-01-01'
GROUP BY n_name ORDER BY revenue DESC"

step "a materialized view, refreshed by every commit to its source"
sql "CREATE MATERIALIZED VIEW orders_by_priority AS
  SELECT o_orderpriority, COUNT(*) AS orders, SUM(o_totalprice) AS total FROM orders GROUP BY o_orderpriority"
sql "SELECT * FROM orders_by_priority ORDER BY o_orderpriority"
before=$("$bin" "${flags[@]}" --format tsv -e 'SELECT MAX(snapshot_id) FROM tpch.`orders$snapshots`' | tail -n 1)

step "an update: every 1998 order becomes urgent (one commit; the view refreshes)"
sql "UPDATE orders SET o_orderpriority = '1-URGENT' WHERE o_orderdate >= DATE '1998-01-01'"
sql "SELECT * FROM orders_by_priority ORDER BY o_orderpriority"
sql "SHOW MATERIALIZED VIEWS IN tpch"

step "time travel: the orders as they were before the update (snapshot $before)"
sql "SELECT o_orderpriority, COUNT(*) AS orders FROM orders FOR VERSION AS OF $before
WHERE o_orderdate >= DATE '1998-01-01' GROUP BY o_orderpriority ORDER BY o_orderpriority"
sql "SELECT snapshot_id, operation, message FROM \`orders\$snapshots\` ORDER BY snapshot_id DESC LIMIT 3"

step "EXPLAIN ANALYZE: a month of orders reads only its year's partition;" \
	"a month of line items skips files by their date bounds and pages by the page index"
sql "EXPLAIN ANALYZE SELECT COUNT(*), SUM(o_totalprice) FROM orders
WHERE o_orderdate BETWEEN DATE '1995-03-01' AND DATE '1995-03-31'"
sql "EXPLAIN ANALYZE SELECT l_shipmode, COUNT(*) FROM lineitem
WHERE l_shipdate BETWEEN DATE '1996-01-01' AND DATE '1996-01-31' GROUP BY l_shipmode"

step "compaction: late orders arrive one at a time, then CALL compact merges the small files"
for i in 1 2 3 4 5 6; do
	sql "INSERT INTO orders VALUES (1000000 + $i, $i, 'O', 100.00, DATE '1998-08-0$i', '5-LOW')" >/dev/null
done
sql "SELECT COUNT(*) AS files, SUM(record_count) AS rows_in_files FROM \`orders\$files\`"
"$bin" "${flags[@]}" --format tsv -e "CALL compact('tpch.orders')" | cut -f 1,4,5,8,10
sql "SELECT COUNT(*) AS files, SUM(record_count) AS rows_in_files FROM \`orders\$files\`"
sql "SELECT COUNT(*) AS orders FROM orders"

printf '\nDemo done in %ss.\n' "$(($(date +%s) - t0))"
if [ -z "${LAKESQL_DEMO_FLAGS:-}" ]; then
	echo "The data is in ./lake. Start the REPL with: bin/lakesql   or a server with: bin/lakesql serve"
fi
