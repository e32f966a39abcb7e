package main

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/lakesql/lakesql/engine"
)

// tpchOptions configure the TPC-H suite.
type tpchOptions struct {
	sf       float64
	rounds   int
	timeout  time.Duration
	dir, out string
	only     string
	wire     bool
	embedded bool
	failFast bool
	cpuProf  string
}

// lakePath is one way of running a query on lakesql.
type lakePath struct {
	name string
	run  func(ctx context.Context, q string, timeout time.Duration) ([][]any, float64, error)
}

// tpchResult is one query's measurements: per lakesql path its times and
// per-round ratios to DuckDB.
type tpchResult struct {
	q       tpchQuery
	rows    int
	status  string // "ok", or the failure/timeout/first difference
	failed  bool   // no timing (error or timeout)
	timeout bool
	duck    []float64
	lake    map[string][]float64
	ratio   map[string][]float64
	lakeRSS uint64
}

// tpchEnv is everything a TPC-H run needs, shared by the benchmark and
// the correctness test.
type tpchEnv struct {
	e       *engine.Engine
	conn    *engine.Conn
	wire    *wireServer
	duck    *dbsql.DB
	queries []tpchQuery
	tables  []*tpchTable
	close   []func()
}

func (env *tpchEnv) Close() {
	for i := len(env.close) - 1; i >= 0; i-- {
		env.close[i]()
	}
}

// openTPCH generates (or reuses) the data at sf in warehouse, registers it
// in a lakesql engine over that warehouse, starts the wire server when
// wire is set and opens DuckDB over the same files.
func openTPCH(ctx context.Context, warehouse string, sf float64, wire bool, logf func(string, ...any)) (env *tpchEnv, err error) {
	env = &tpchEnv{}
	defer func() {
		if err != nil {
			env.Close()
		}
	}()
	if env.duck, err = dbsql.Open("duckdb", ""); err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	env.duck.SetMaxOpenConns(1)
	env.close = append(env.close, func() { env.duck.Close() })
	if env.tables, err = genTPCH(ctx, env.duck, warehouse, sf, logf); err != nil {
		return nil, err
	}
	if env.queries, err = loadTPCHQueries(ctx, env.duck); err != nil {
		return nil, err
	}
	env.e, err = engine.Open(ctx, engine.Config{Warehouse: warehouse, CreateDefaultWorkspace: true, NoAudit: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return nil, err
	}
	env.close = append(env.close, func() { env.e.Close() })
	env.conn = env.e.Connect("root")
	env.close = append(env.close, func() { env.conn.Close() })
	if err := registerTPCH(ctx, env.conn, sf, env.tables); err != nil {
		return nil, err
	}
	if _, err := env.conn.Query(ctx, "USE "+tpchDatabase(sf)); err != nil {
		return nil, fmt.Errorf("lakesql: %w", err)
	}
	if wire {
		if env.wire, err = startWire(ctx, env.e, tpchDatabase(sf)); err != nil {
			return nil, err
		}
		env.close = append(env.close, env.wire.Close)
	}
	return env, nil
}

// check runs one query on DuckDB and through run and describes the
// outcome: "" when the answers agree.
func (env *tpchEnv) check(ctx context.Context, q tpchQuery, run func(context.Context, string, time.Duration) ([][]any, float64, error), timeout time.Duration) (rows int, diff string, err error) {
	drows, _, err := queryDuck(ctx, env.duck, q.Duck, timeout)
	if err != nil {
		return 0, "", fmt.Errorf("duckdb: %w", err)
	}
	lrows, _, err := run(ctx, q.MySQL, timeout)
	if err != nil {
		return len(drows), "", err
	}
	return len(drows), diffResults(query{Name: q.Name, Ordered: q.Ordered, ExactDecimals: true}, lrows, drows), nil
}

func runTPCH(ctx context.Context, o tpchOptions) error {
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...) }
	dir := o.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "lakesql-tpch-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	t0 := time.Now()
	env, err := openTPCH(ctx, dir, o.sf, o.wire, logf)
	if err != nil {
		return err
	}
	defer env.Close()
	setup := time.Since(t0)
	var duckVersion string
	if err := env.duck.QueryRowContext(ctx, "SELECT version()").Scan(&duckVersion); err != nil {
		return fmt.Errorf("duckdb: %w", err)
	}
	var paths []lakePath
	if o.wire {
		paths = append(paths, lakePath{"wire", env.wire.query})
	}
	if o.embedded {
		paths = append(paths, lakePath{"embedded", func(ctx context.Context, q string, t time.Duration) ([][]any, float64, error) {
			return queryEmbedded(ctx, env.conn, q, t)
		}})
	}
	if len(paths) == 0 {
		return fmt.Errorf("neither -wire nor -embedded: nothing to run lakesql through")
	}
	runtime.GC()
	debug.FreeOSMemory()

	var results []*tpchResult
	for _, q := range env.queries {
		if o.only == "" || matchesOnly(q, o.only) {
			results = append(results, &tpchResult{q: q, status: "ok", lake: map[string][]float64{}, ratio: map[string][]float64{}})
		}
	}
	// Warm-up: every path's answer is checked against DuckDB's.
	failures := 0
	for _, r := range results {
		for _, p := range paths {
			probe := startProbe()
			rows, diff, err := env.check(ctx, r.q, p.run, o.timeout)
			r.lakeRSS = max(r.lakeRSS, probe.end().rss)
			r.rows = rows
			switch {
			case err != nil:
				r.failed, r.timeout = true, errors.Is(err, errTimeout)
				r.status = fmt.Sprintf("%s: %s", p.name, firstLine(err.Error()))
			case diff != "":
				r.status = fmt.Sprintf("%s: differs: %s", p.name, firstDiff(diff))
				fmt.Fprintf(os.Stderr, "MISMATCH %s (%s)\n%s", r.q.Name, p.name, diff)
			}
			if r.status != "ok" {
				break
			}
		}
		if r.status != "ok" {
			failures++
			logf("%s FAILED: %s", r.q.Name, r.status)
			if o.failFast {
				return fmt.Errorf("%s: %s", r.q.Name, r.status)
			}
		} else {
			logf("%s %d rows, answers agree", r.q.Name, r.rows)
		}
	}
	if o.cpuProf != "" {
		stop, err := startCPUProfile(o.cpuProf)
		if err != nil {
			return err
		}
		defer stop()
	}
	// Timed rounds, interleaved: each query runs on DuckDB and every
	// lakesql path before the next; the order rotates by round.
	for round := range o.rounds {
		for _, r := range results {
			if r.failed {
				continue
			}
			var duckMS float64
			lakeMS := map[string]float64{}
			steps := []func() error{func() error {
				runtime.GC()
				_, el, err := queryDuck(ctx, env.duck, r.q.Duck, o.timeout)
				duckMS = el
				return err
			}}
			for _, p := range paths {
				steps = append(steps, func() error {
					runtime.GC()
					probe := startProbe()
					_, el, err := p.run(ctx, r.q.MySQL, o.timeout)
					r.lakeRSS = max(r.lakeRSS, probe.end().rss)
					lakeMS[p.name] = el
					if err != nil {
						return fmt.Errorf("%s: %w", p.name, err)
					}
					return nil
				})
			}
			for i := range steps {
				if err := steps[(i+round)%len(steps)](); err != nil {
					r.failed, r.timeout = true, errors.Is(err, errTimeout)
					r.status = fmt.Sprintf("round %d: %s", round+1, firstLine(err.Error()))
					break
				}
			}
			if r.failed {
				failures++
				continue
			}
			r.duck = append(r.duck, duckMS)
			for name, l := range lakeMS {
				r.lake[name] = append(r.lake[name], l)
				r.ratio[name] = append(r.ratio[name], l/duckMS)
			}
		}
		logf("round %d/%d done", round+1, o.rounds)
	}
	report := renderTPCH(o, results, paths, duckVersion, setup)
	fmt.Print(report)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(report), 0o644); err != nil {
			return err
		}
		logf("wrote %s", o.out)
	}
	if failures > 0 {
		return fmt.Errorf("%d of %d TPC-H queries failed, timed out or differ from DuckDB (see the report)", failures, len(results))
	}
	return nil
}

func matchesOnly(q tpchQuery, only string) bool {
	for _, s := range strings.Split(only, ",") {
		s = strings.TrimSpace(strings.ToUpper(s))
		if s == q.Name || s == fmt.Sprintf("Q%d", q.N) {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// firstDiff condenses diffResults' text to its first difference.
func firstDiff(d string) string {
	lines := strings.Split(strings.TrimSpace(d), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	if len(lines) > 3 {
		lines = lines[:3]
	}
	return firstLine(strings.Join(lines, " "))
}

func geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

func renderTPCH(o tpchOptions, results []*tpchResult, paths []lakePath, duckVersion string, setup time.Duration) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# TPC-H: lakesql vs DuckDB, scale factor %g\n\n", o.sf)
	fmt.Fprintf(&sb, "%s · DuckDB dbgen → Parquet (lineitem/orders split by date into files of ≤%d rows, row groups of %d rows), "+
		"registered with add_files · setup %v · %d rounds after a checked warm-up · timeout %v per query · GOMAXPROCS %d · DuckDB %s · %s/%s\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), tpchFilesPer, tpchRowGroup, setup.Round(time.Millisecond), o.rounds, o.timeout,
		runtime.GOMAXPROCS(0), duckVersion, runtime.GOOS, runtime.GOARCH)
	sb.WriteString("| query | rows | check |")
	for _, p := range paths {
		fmt.Fprintf(&sb, " %s ms |", p.name)
	}
	sb.WriteString(" DuckDB ms |")
	for _, p := range paths {
		fmt.Fprintf(&sb, " %s/DuckDB |", p.name)
	}
	sb.WriteString(" lakesql peak RSS MB |\n|---|--:|---|")
	sb.WriteString(strings.Repeat("--:|", 2*len(paths)+2) + "\n")
	ratios := map[string][]float64{}
	worst := map[string]string{}
	worstR := map[string]float64{}
	answered := 0
	for _, r := range results {
		check := r.status
		if check != "ok" {
			check = "**" + strings.ReplaceAll(check, "|", "/") + "**"
		} else {
			answered++
		}
		fmt.Fprintf(&sb, "| %s | %d | %s |", r.q.Name, r.rows, check)
		timed := len(r.duck) > 0 && r.status == "ok"
		for _, p := range paths {
			if timed {
				fmt.Fprintf(&sb, " %.1f |", median(r.lake[p.name]))
			} else {
				sb.WriteString(" – |")
			}
		}
		if timed {
			fmt.Fprintf(&sb, " %.1f |", median(r.duck))
		} else {
			sb.WriteString(" – |")
		}
		for _, p := range paths {
			if !timed {
				sb.WriteString(" – |")
				continue
			}
			m := median(r.ratio[p.name])
			ratios[p.name] = append(ratios[p.name], m)
			if m > worstR[p.name] {
				worstR[p.name], worst[p.name] = m, r.q.Name
			}
			fmt.Fprintf(&sb, " %.2f |", m)
		}
		fmt.Fprintf(&sb, " %s |\n", mb(r.lakeRSS))
	}
	fmt.Fprintf(&sb, "\n%d of %d queries correct.", answered, len(results))
	for _, p := range paths {
		fmt.Fprintf(&sb, " %s: geometric mean of the ratios %.2f over %d answered queries, worst %.2f (%s).",
			p.name, geomean(ratios[p.name]), len(ratios[p.name]), worstR[p.name], worst[p.name])
	}
	sb.WriteString("\n\nTimes are medians over the rounds; a ratio is the median of the per-round ratios lakesql/DuckDB. " +
		"The geometric mean and worst ratio cover the queries that answered correctly in every round (failures and timeouts are listed, not averaged). " +
		"Peak RSS is the process's VmHWM during lakesql's runs")
	if hwmResettable {
		sb.WriteString(" (reset before each run), which includes DuckDB's resident buffers in the same process.\n")
	} else {
		sb.WriteString(" since the process started (/proc/self/clear_refs was not writable).\n")
	}
	return sb.String()
}
