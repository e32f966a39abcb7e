package main

import (
	"context"
	dbsql "database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/engine"
)

// tpchDatabase is the lakesql database holding the TPC-H tables of one
// scale factor (one per scale factor, so a reused -dir never mixes them).
func tpchDatabase(sf float64) string { return "tpch_" + sfLabel(sf) }

// tpchTable is one TPC-H table: its lakesql DDL column list, the column
// its files are sorted by (lineitem and orders are split into several
// files along a date, so range filters prune files and row groups), and
// the Parquet files once written.
type tpchTable struct {
	name    string
	columns string
	sortBy  string
	split   bool
	paths   []string // absolute, for DuckDB
	keys    []string // object keys in the lakesql warehouse
}

// tpchTables are DuckDB dbgen's tables with the types it generates.
func tpchTables() []*tpchTable {
	return []*tpchTable{
		{name: "lineitem", sortBy: "l_shipdate", split: true, columns: `l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT,
			l_linenumber BIGINT, l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2),
			l_tax DECIMAL(15,2), l_returnflag VARCHAR(1), l_linestatus VARCHAR(1), l_shipdate DATE, l_commitdate DATE,
			l_receiptdate DATE, l_shipinstruct VARCHAR(25), l_shipmode VARCHAR(10), l_comment VARCHAR(44)`},
		{name: "orders", sortBy: "o_orderdate", split: true, columns: `o_orderkey BIGINT, o_custkey BIGINT,
			o_orderstatus VARCHAR(1), o_totalprice DECIMAL(15,2), o_orderdate DATE, o_orderpriority VARCHAR(15),
			o_clerk VARCHAR(15), o_shippriority INT, o_comment VARCHAR(79)`},
		{name: "customer", columns: `c_custkey BIGINT, c_name VARCHAR(25), c_address VARCHAR(40), c_nationkey INT,
			c_phone VARCHAR(15), c_acctbal DECIMAL(15,2), c_mktsegment VARCHAR(10), c_comment VARCHAR(117)`},
		{name: "part", columns: `p_partkey BIGINT, p_name VARCHAR(55), p_mfgr VARCHAR(25), p_brand VARCHAR(10),
			p_type VARCHAR(25), p_size INT, p_container VARCHAR(10), p_retailprice DECIMAL(15,2), p_comment VARCHAR(23)`},
		{name: "partsupp", columns: `ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty BIGINT,
			ps_supplycost DECIMAL(15,2), ps_comment VARCHAR(199)`},
		{name: "supplier", columns: `s_suppkey BIGINT, s_name VARCHAR(25), s_address VARCHAR(40), s_nationkey INT,
			s_phone VARCHAR(15), s_acctbal DECIMAL(15,2), s_comment VARCHAR(101)`},
		{name: "nation", columns: `n_nationkey INT, n_name VARCHAR(25), n_regionkey INT, n_comment VARCHAR(152)`},
		{name: "region", columns: `r_regionkey INT, r_name VARCHAR(25), r_comment VARCHAR(152)`},
	}
}

// tpchRowGroup is the Parquet row-group size of the written files.
const tpchRowGroup = 128 * 1024

// tpchFilesPer is how many rows a split table puts in one file (at least
// two files each, so file pruning has something to prune).
const tpchFilesPer = 500_000

// sfLabel names a scale factor in paths ("0.1" → "sf0_1").
func sfLabel(sf float64) string {
	return "sf" + strings.ReplaceAll(strconv.FormatFloat(sf, 'f', -1, 64), ".", "_")
}

// genTPCH makes the TPC-H tables at scale factor sf with DuckDB's dbgen
// and writes them as Parquet under warehouse/tpch-data/<sf>/<table>/, or
// reuses the files a previous run wrote there (a "done" marker is written
// last). db is left with one view per table over those files, so DuckDB
// reads exactly what lakesql reads.
func genTPCH(ctx context.Context, db *dbsql.DB, warehouse string, sf float64, logf func(string, ...any)) ([]*tpchTable, error) {
	rel := filepath.ToSlash(filepath.Join("tpch-data", sfLabel(sf)))
	root := filepath.Join(warehouse, filepath.FromSlash(rel))
	marker := filepath.Join(root, "done")
	tables := tpchTables()
	if _, err := os.Stat(marker); err != nil {
		if err := os.RemoveAll(root); err != nil {
			return nil, err
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf("CALL dbgen(sf=%g)", sf)); err != nil {
			return nil, fmt.Errorf("duckdb dbgen: %w", err)
		}
		for _, t := range tables {
			if err := writeTable(ctx, db, root, t); err != nil {
				return nil, err
			}
			if _, err := db.ExecContext(ctx, "DROP TABLE "+t.name); err != nil {
				return nil, fmt.Errorf("duckdb: %w", err)
			}
		}
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			return nil, err
		}
		logf("generated TPC-H at scale factor %g with DuckDB dbgen into %s", sf, root)
	} else {
		logf("reusing TPC-H files in %s", root)
	}
	for _, t := range tables {
		matches, err := filepath.Glob(filepath.Join(root, t.name, "*.parquet"))
		if err != nil || len(matches) == 0 {
			return nil, fmt.Errorf("no Parquet files for %s in %s (remove %s to regenerate)", t.name, root, marker)
		}
		t.paths = matches
		for _, m := range matches {
			t.keys = append(t.keys, rel+"/"+t.name+"/"+filepath.Base(m))
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM read_parquet(%s)", t.name, sqlList(t.paths))); err != nil {
			return nil, fmt.Errorf("duckdb: %w", err)
		}
	}
	return tables, nil
}

// writeTable writes one generated table: split tables sorted by their
// date into files of tpchFilesPer rows, the others into one file.
func writeTable(ctx context.Context, db *dbsql.DB, root string, t *tpchTable) error {
	dir := filepath.Join(root, t.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+t.name).Scan(&n); err != nil {
		return fmt.Errorf("duckdb: %w", err)
	}
	files := int64(1)
	src := t.name
	if t.split {
		files = max(2, (n+tpchFilesPer-1)/tpchFilesPer)
		// A sorted copy, read back in insertion order by LIMIT/OFFSET.
		src = t.name + "_sorted"
		if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM %s ORDER BY %s", src, t.name, t.sortBy)); err != nil {
			return fmt.Errorf("duckdb: %w", err)
		}
		defer db.ExecContext(ctx, "DROP TABLE "+src) //nolint:errcheck // best effort; the DuckDB is discarded after the run
	}
	per := (n + files - 1) / files
	for k := range files {
		path := filepath.Join(dir, fmt.Sprintf("%s-%03d.parquet", t.name, k))
		q := fmt.Sprintf("COPY (SELECT * FROM %s LIMIT %d OFFSET %d) TO %s (FORMAT parquet, ROW_GROUP_SIZE %d)",
			src, per, k*per, sqlString(path), tpchRowGroup)
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("duckdb: write %s: %w", path, err)
		}
	}
	return nil
}

// registerTPCH creates the TPC-H tables in lakesql's tpch database and
// registers the Parquet files with add_files (each file's footer gives
// the manifest its stats). Tables already registered with the same files
// are kept.
func registerTPCH(ctx context.Context, conn *engine.Conn, sf float64, tables []*tpchTable) error {
	dbName := tpchDatabase(sf)
	if _, err := conn.Query(ctx, "CREATE DATABASE IF NOT EXISTS "+dbName); err != nil {
		return fmt.Errorf("lakesql: %w", err)
	}
	for _, t := range tables {
		ident := dbName + "." + t.name
		rs, err := conn.Query(ctx, "SELECT COUNT(*) FROM "+ident)
		if err == nil && len(rs) == 1 && len(rs[0].Rows) == 1 && fmt.Sprint(rs[0].Rows[0][0]) != "0" {
			continue
		}
		if _, err := conn.Query(ctx, "DROP TABLE IF EXISTS "+ident); err != nil {
			return fmt.Errorf("lakesql: %w", err)
		}
		if _, err := conn.Query(ctx, fmt.Sprintf("CREATE TABLE %s (%s)", ident, t.columns)); err != nil {
			return fmt.Errorf("lakesql: create %s: %w", t.name, err)
		}
		if _, err := conn.Query(ctx, fmt.Sprintf("CALL add_files(%s, %s)", sqlString(ident), sqlString(strings.Join(t.keys, ",")))); err != nil {
			return fmt.Errorf("lakesql: add_files %s: %w", t.name, err)
		}
	}
	return nil
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func sqlList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = sqlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
