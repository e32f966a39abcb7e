#!/usr/bin/env bash
# make demo: load a small sample dataset into the embedded default warehouse
# (./lake) and run a few queries with the lakesql binary.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bin/lakesql
[ -x "$bin" ] || go build -o "$bin" ./cmd/lakesql

"$bin" -e "DROP DATABASE IF EXISTS demo" >/dev/null
"$bin" <<'SQL'
CREATE DATABASE demo;
CREATE TABLE demo.orders (
  id BIGINT, customer VARCHAR(40), region VARCHAR(10),
  amount DECIMAL(12,2), shipped DATE, created DATETIME(6));
INSERT INTO demo.orders VALUES
  (1, 'ada',     'eu', 120.50, '2026-01-03', '2026-01-02 09:00:00'),
  (2, 'bob',     'us',  35.00, '2026-01-05', '2026-01-04 17:30:00'),
  (3, 'chen',    'ap', 980.10, NULL,          '2026-01-06 08:15:00'),
  (4, 'ada',     'eu',  12.99, '2026-02-01', '2026-01-31 23:59:59'),
  (5, 'dmitri',  'eu', 450.00, '2026-02-10', '2026-02-09 12:00:00');
INSERT INTO demo.orders VALUES (6, 'bob', 'us', 77.70, '2026-03-01', '2026-02-28 10:10:10');
CREATE VIEW demo.big_orders AS SELECT id, customer, amount FROM demo.orders WHERE amount > 100;
SQL

echo "== revenue by region"
"$bin" -e "SELECT region, COUNT(*) AS orders, SUM(amount) AS revenue FROM demo.orders GROUP BY region ORDER BY revenue DESC"
echo "== big orders (a view stored in the catalog)"
"$bin" -e "USE demo; SELECT * FROM big_orders ORDER BY amount DESC"
echo "== not shipped yet"
"$bin" -e "SELECT id, customer FROM demo.orders WHERE shipped IS NULL"
echo "== workspaces"
"$bin" -e "SHOW WORKSPACES"
echo
echo "The data is in ./lake. Start the REPL with: bin/lakesql   or a server with: bin/lakesql serve"
