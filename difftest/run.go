package difftest

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"
)

// Config is one differential run.
type Config struct {
	Seed    uint64
	Queries int // random queries to run
	Tables  int // generated tables (default 4)
	Rows    int // about this many rows per table, at most (default 12)
	// QueryTimeout bounds each query on each server (default 20 s).
	QueryTimeout time.Duration
	Log          *slog.Logger
}

// Mismatch is a query whose answers differ.
type Mismatch struct {
	Index int
	Query Query
	Diff  string
}

func (m Mismatch) String() string {
	return fmt.Sprintf("query %d: %s\n  %s", m.Index, m.Query.SQL, m.Diff)
}

// Report sums up a run.
type Report struct {
	Queries     int
	BothFailed  int // queries both servers refused with the same code
	Mismatches  []Mismatch
	TableSchema []string // the CREATE TABLE statements, to reproduce a run
}

// Setup prepares a session of either server for the comparison: MySQL 8's
// defaults where MariaDB's differ (sql_mode, a binary NO PAD collation like
// lakesql's utf8mb4_0900_bin, UTC), then a fresh database db.
func Setup(ctx context.Context, c *sql.Conn, db string, mariadb bool) error {
	stmts := []string{"SET time_zone = '+00:00'"}
	if mariadb {
		stmts = append(stmts,
			"SET NAMES utf8mb4 COLLATE utf8mb4_nopad_bin",
			"SET sql_mode = '"+mariadbSQLMode+"'",
			"SET div_precision_increment = 4")
	}
	stmts = append(stmts, "DROP DATABASE IF EXISTS "+db, "CREATE DATABASE "+db, "USE "+db)
	for _, s := range stmts {
		if _, err := c.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// Run creates cfg.Tables random tables identically through lake and
// oracle (both prepared by Setup), then runs cfg.Queries random queries on
// both and reports every query whose answers differ. A table either
// server cannot create is an error.
func Run(ctx context.Context, lake, oracle *sql.Conn, cfg Config) (Report, error) {
	cfg = withDefaults(cfg)
	r := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	tables := GenTables(r, cfg.Tables, cfg.Rows)
	var rep Report
	for _, t := range tables {
		rep.TableSchema = append(rep.TableSchema, t.CreateSQL())
		for _, s := range []string{t.CreateSQL(), t.InsertSQL()} {
			if s == "" {
				continue
			}
			if _, err := lake.ExecContext(ctx, s); err != nil {
				return rep, fmt.Errorf("lakesql: %s: %w", s, err)
			}
			if _, err := oracle.ExecContext(ctx, s); err != nil {
				return rep, fmt.Errorf("MariaDB: %s: %w", s, err)
			}
		}
	}
	g := NewGen(r, tables)
	for i := 0; i < cfg.Queries; i++ {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		q := g.Next()
		lr := timed(ctx, lake, q.SQL, cfg.QueryTimeout)
		or := timed(ctx, oracle, q.SQL, cfg.QueryTimeout)
		rep.Queries++
		if d := diff(lr, or, q.Ordered); d != "" {
			m := Mismatch{Index: i, Query: q, Diff: d}
			cfg.Log.Debug("difftest mismatch", "index", i, "query", q.SQL, "diff", d)
			rep.Mismatches = append(rep.Mismatches, m)
		} else if lr.Err != nil {
			rep.BothFailed++
		}
	}
	return rep, nil
}

func withDefaults(cfg Config) Config {
	if cfg.Tables <= 0 {
		cfg.Tables = 4
	}
	if cfg.Rows <= 0 {
		cfg.Rows = 12
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = 20 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return cfg
}

// timed runs q with a per-query deadline.
func timed(ctx context.Context, c *sql.Conn, q string, d time.Duration) Result {
	qctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return query(qctx, c, q)
}

// Explain creates cfg's tables like Run, then runs stmts (separated by
// ";") on both servers and describes each answer: names, wire types, rows
// and the difference, for reproducing a mismatch by hand.
func Explain(ctx context.Context, lake, oracle *sql.Conn, cfg Config, stmts string) []string {
	cfg = withDefaults(cfg)
	cfg.Queries = 0
	rep, err := Run(ctx, lake, oracle, cfg)
	if err != nil {
		return []string{err.Error()}
	}
	out := rep.TableSchema
	for _, q := range strings.Split(stmts, ";") {
		if q = strings.TrimSpace(q); q == "" {
			continue
		}
		lr, or := timed(ctx, lake, q, cfg.QueryTimeout), timed(ctx, oracle, q, cfg.QueryTimeout)
		out = append(out, q,
			fmt.Sprintf("  lakesql: %v %v %v err=%v", lr.Names, lr.Types, normaliseRows(lr), lr.Err),
			fmt.Sprintf("  MariaDB: %v %v %v err=%v", or.Names, or.Types, normaliseRows(or), or.Err),
			"  diff: "+diff(lr, or, false))
	}
	return out
}
