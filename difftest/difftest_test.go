package difftest_test

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"log/slog"
	"net"
	"os"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/sirupsen/logrus"

	"github.com/lakesql/lakesql/difftest"
	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// The fixed-seed run in make test is these defaults; make difftest passes
// other values (SEED=, QUERIES=).
var (
	seed    = flag.Uint64("difftest.seed", 20261204, "seed of the random tables and queries")
	queries = flag.Int("difftest.queries", 2500, "number of random queries")
	tables  = flag.Int("difftest.tables", 4, "number of random tables")
	rows    = flag.Int("difftest.rows", 12, "about this many rows per table, at most")
	only    = flag.String("difftest.sql", "", "run only these statements (after the seed's tables) on both servers and log both answers")
)

func TestMain(m *testing.M) {
	// GMS's server logs every connection through logrus.
	logrus.SetLevel(logrus.ErrorLevel)
	os.Exit(m.Run())
}

// startMariaDB starts the oracle, skipping when mariadb-server is absent
// outside CI and failing under CI=true (.ci/run installs it).
func startMariaDB(t *testing.T) *difftest.MariaDB {
	t.Helper()
	m, err := difftest.StartMariaDB(context.Background(), t.TempDir(), slog.Default())
	if errors.Is(err, difftest.ErrNoMariaDB) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v; .ci/run installs it", err)
		}
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// conn opens one connection (one session) through the driver.
func conn(t *testing.T, cfg *gomysql.Config) *sql.Conn {
	t.Helper()
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// serveLakesql serves a fresh embedded warehouse over the MySQL wire on
// a loopback port.
func serveLakesql(t *testing.T) *gomysql.Config {
	t.Helper()
	e := enginetest.Open(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := e.NewServer(engine.ServerConfig{Listener: l})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	t.Cleanup(func() { srv.Close() })
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", l.Addr().String()
	return cfg
}

// TestDifferential runs random queries over random tables on lakesql and
// on MariaDB and fails on every answer that differs beyond the known
// MySQL 8 / MariaDB differences (doc.go).
func TestDifferential(t *testing.T) {
	m := startMariaDB(t)
	ctx := context.Background()
	lake, oracle := conn(t, serveLakesql(t)), conn(t, m.Config())
	if err := difftest.Setup(ctx, lake, "dt", false); err != nil {
		t.Fatalf("lakesql: %v", err)
	}
	if err := difftest.Setup(ctx, oracle, "dt", true); err != nil {
		t.Fatalf("MariaDB: %v", err)
	}
	cfg := difftest.Config{Seed: *seed, Queries: *queries, Tables: *tables, Rows: *rows}
	if *only != "" {
		for _, a := range difftest.Explain(ctx, lake, oracle, cfg, *only) {
			t.Log(a)
		}
		return
	}
	rep, err := difftest.Run(ctx, lake, oracle, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seed %d: %d queries, %d refused by both, %d mismatches", *seed, rep.Queries, rep.BothFailed, len(rep.Mismatches))
	if len(rep.Mismatches) > 0 {
		for _, s := range rep.TableSchema {
			t.Log(s)
		}
	}
	for _, mm := range rep.Mismatches {
		t.Error(mm)
	}
}
