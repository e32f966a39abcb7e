// Command bench benchmarks lakesql against DuckDB on the same Parquet
// files. Three suites:
//
// tpch (the default, issue 15): DuckDB's dbgen generates TPC-H at a scale
// factor, written as Parquet (lineitem and orders split by a date into
// several files, 128k-row row groups) and registered in lakesql with
// add_files; the 22 queries (tpch_queries(), translated to MySQL's
// dialect) run over the MySQL wire and embedded, interleaved with DuckDB
// on the same files. Per query: correct or the first difference, the
// times, the median per-round ratio, lakesql's peak RSS; then the
// geometric mean and the worst ratio. A query past -timeout is killed
// (KILL QUERY over the wire) and reported; the run goes on.
//
//	cd bench && go run .                          # SF 0.1, 3 rounds
//	cd bench && go run . -sf 1 -dir /tmp/tpch     # SF 1, data kept for reruns
//	cd bench && go run . -q Q3,Q17 -rounds 1      # some queries
//
// single (issue 7): a generated lineitem-like table sorted by l_shipdate
// and a small orders table, loaded through lakesql's own write path;
// single-table queries timed the same way, plus a planning benchmark that
// prunes a 100,000-file manifest by a range.
//
//	cd bench && go run . -suite single                 # 600k rows, 24 files, 5 rounds
//	cd bench && go run . -suite single -rows 6000000   # 6M rows
//
// iceberg (issue 19): the Iceberg metadata export of a 100,000-file table
// (manifest entries only), cold, then incrementally after one-file
// appends, against the appends' own commit time. No DuckDB.
//
//	cd bench && go run . -suite iceberg
//
// It is its own Go module so that DuckDB's cgo never enters lakesql's
// build.
package main

import (
	"context"
	dbsql "database/sql"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/lakesql/lakesql/engine"
)

type options struct {
	rows, files, rounds int
	dir, out, only      string
	planFiles, planReps int
	icebergFiles        int
	icebergAppends      int
	failFast            bool
	cpuProfile          string
	// lakeOnly runs lakesql alone (no DuckDB in the process, no
	// cross-check): to measure lakesql's own peak RSS.
	lakeOnly bool
}

// result holds one query's measurements.
type result struct {
	q                query
	rows             int
	err              string // a query error or a cross-check mismatch
	mismatch         bool
	lake, duck       []float64 // ms per round
	ratio            []float64
	lakeMem, duckMem memPeak
}

func main() {
	var o options
	var t tpchOptions
	suite := flag.String("suite", "tpch", "tpch: the 22 TPC-H queries (DuckDB dbgen data); single: the single-table cases on generated lineitem/orders; iceberg: Iceberg metadata export of a 100k-file table")
	flag.Float64Var(&t.sf, "sf", 0.1, "TPC-H scale factor (-suite tpch)")
	flag.DurationVar(&t.timeout, "timeout", 120*time.Second, "per-query timeout (-suite tpch): the query is killed and reported, the run goes on")
	flag.BoolVar(&t.wire, "wire", true, "run lakesql over the MySQL wire (-suite tpch)")
	flag.BoolVar(&t.embedded, "embedded", true, "run lakesql embedded (-suite tpch)")
	flag.IntVar(&o.rows, "rows", 600_000, "lineitem rows (6000000 for the 6M run)")
	flag.IntVar(&o.files, "files", 0, "lineitem data files (default 24, or rows/250000 when that is more)")
	flag.IntVar(&o.rounds, "rounds", 0, "timed rounds after the warm-up (default 3 for tpch, 5 for single)")
	flag.StringVar(&o.dir, "dir", "", "warehouse folder to load into and keep (reused when generated with the same -rows/-files); default a temporary folder")
	flag.StringVar(&o.out, "out", "", "markdown report to write (default results.md for tpch, results-single.md for single; \"-\": none)")
	flag.StringVar(&o.only, "q", "", "run only queries whose name contains this text (tpch: a comma-separated list such as Q1,Q17)")
	flag.IntVar(&o.planFiles, "plan-files", 100_000, "files in the planning benchmark's manifest (0: skip it)")
	flag.IntVar(&o.planReps, "plan-reps", 30, "repetitions of the planning benchmark")
	flag.IntVar(&o.icebergFiles, "iceberg-files", 100_000, "files in the Iceberg export benchmark's table (-suite iceberg)")
	flag.IntVar(&o.icebergAppends, "iceberg-appends", 7, "one-file appends, each followed by an incremental export (-suite iceberg)")
	flag.BoolVar(&o.failFast, "failfast", false, "stop at the first cross-check mismatch instead of timing the rest")
	flag.BoolVar(&o.lakeOnly, "lakesql-only", false, "run lakesql alone, without DuckDB (no cross-check or ratio): its own peak RSS, as for the 6M-row memory check")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the timed rounds to this file (DuckDB's time shows as cgo calls)")
	flag.Parse()
	if o.files <= 0 {
		o.files = max(24, o.rows/250_000)
	}
	var err error
	switch *suite {
	case "tpch":
		t.rounds, t.dir, t.out, t.only, t.failFast, t.cpuProf = orDefault(o.rounds, 3), o.dir, outPath(o.out, "results.md"), o.only, o.failFast, o.cpuProfile
		err = runTPCH(context.Background(), t)
	case "iceberg":
		err = runIceberg(context.Background(), o.icebergFiles, o.icebergAppends, outPath(o.out, "results-iceberg.md"))
	case "single":
		o.rounds, o.out = orDefault(o.rounds, 5), outPath(o.out, "results-single.md")
		err = run(context.Background(), o)
	default:
		err = fmt.Errorf("unknown -suite %q (tpch, single or iceberg)", *suite)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

func outPath(flagged, def string) string {
	switch flagged {
	case "":
		return def
	case "-":
		return ""
	}
	return flagged
}

var errMismatch = fmt.Errorf("lakesql and DuckDB disagree (see above)")

func run(ctx context.Context, o options) error {
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	}
	dir := o.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "lakesql-bench-")
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
	e, err := engine.Open(ctx, engine.Config{Warehouse: dir, CreateDefaultWorkspace: true, NoAudit: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	defer e.Close()
	t0 := time.Now()
	li, ord, reused, err := load(ctx, e, dir, o.rows, o.files, logf)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	loadTime := time.Since(t0)
	var liRecords, liBytes int64
	for _, f := range li.files {
		liRecords += f.RecordCount
		liBytes += f.FileSize
	}
	conn := e.Connect("root")
	defer conn.Close()
	if err := conn.Exec(ctx, "USE "+benchCollection); err != nil {
		return fmt.Errorf("lakesql: USE %s: %w", benchCollection, err)
	}

	var duckVersion string
	var db *dbsql.DB
	if o.lakeOnly {
		duckVersion = "not run (-lakesql-only)"
	} else {
		if db, err = openDuck(ctx, li, ord); err != nil {
			return err
		}
		defer db.Close()
		if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&duckVersion); err != nil {
			return fmt.Errorf("duckdb: %w", err)
		}
		var duckCount int64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM lineitem").Scan(&duckCount); err != nil {
			return fmt.Errorf("duckdb: %w", err)
		}
		if duckCount != liRecords {
			return fmt.Errorf("DuckDB counts %d rows in the data files, the manifest %d", duckCount, liRecords)
		}
	}
	logf("lineitem: %d rows in %d files (%.1f MB); orders: %d rows; DuckDB %s; GOMAXPROCS %d",
		liRecords, len(li.files), float64(liBytes)/(1<<20), ord.files[0].RecordCount, duckVersion, runtime.GOMAXPROCS(0))
	// Give the generator's memory back so the peaks below are the queries'.
	runtime.GC()
	debug.FreeOSMemory()

	var results []*result
	for _, q := range queries {
		if o.only == "" || strings.Contains(strings.ToLower(q.Name), strings.ToLower(o.only)) {
			results = append(results, &result{q: q})
		}
	}
	// Warm-up: one run of each engine, whose answers are cross-checked.
	mismatches := 0
	for _, r := range results {
		lrows, _, lerr := timeLake(ctx, conn, r.q.SQL)
		if o.lakeOnly {
			r.rows = len(lrows)
			if lerr != nil {
				return fmt.Errorf("%s: lakesql: %w", r.q.Name, lerr)
			}
			continue
		}
		drows, _, derr := timeDuck(ctx, db, r.q.SQL)
		switch {
		case derr != nil:
			r.err = "duckdb: " + derr.Error()
		case lerr != nil:
			r.err = "lakesql: " + lerr.Error()
		default:
			r.rows = len(drows)
			if d := diffResults(r.q, lrows, drows); d != "" {
				r.err = "results differ"
				r.mismatch = true
				fmt.Fprintf(os.Stderr, "MISMATCH %s\n%s\n%s", r.q.Name, indent(r.q.SQL), d)
			}
		}
		if r.err != "" {
			mismatches++
			if !r.mismatch {
				fmt.Fprintf(os.Stderr, "FAILED %s: %s\n", r.q.Name, r.err)
			}
			if o.failFast {
				return errMismatch
			}
		} else {
			logf("%-26s %d rows, answers agree", r.q.Name, r.rows)
		}
	}
	if o.cpuProfile != "" {
		stop, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	// Timed rounds, interleaved: each query runs on both engines before
	// the next, and which engine goes first alternates by round.
	for round := range o.rounds {
		for _, r := range results {
			if r.err != "" && !r.mismatch {
				continue
			}
			var l, d float64
			var lm, dm memPeak
			var lerr, derr error
			lakeRun := func() {
				runtime.GC()
				p := startProbe()
				_, l, lerr = timeLake(ctx, conn, r.q.SQL)
				lm = p.end()
			}
			duckRun := func() {
				runtime.GC()
				p := startProbe()
				_, d, derr = timeDuck(ctx, db, r.q.SQL)
				dm = p.end()
			}
			switch {
			case o.lakeOnly:
				lakeRun()
			case round%2 == 0:
				lakeRun()
				duckRun()
			default:
				duckRun()
				lakeRun()
			}
			if lerr != nil || derr != nil {
				return fmt.Errorf("%s, round %d: lakesql: %v; duckdb: %v", r.q.Name, round+1, lerr, derr)
			}
			r.lake, r.lakeMem = append(r.lake, l), r.lakeMem.max(lm)
			if !o.lakeOnly {
				r.duck, r.duckMem = append(r.duck, d), r.duckMem.max(dm)
				r.ratio = append(r.ratio, l/d)
			}
		}
		logf("round %d/%d done", round+1, o.rounds)
	}

	var plan *planResult
	if o.planFiles > 0 {
		runtime.GC()
		pr, err := planBench(o.planFiles, o.planReps)
		if err != nil {
			fmt.Fprintf(os.Stderr, "FAILED planning benchmark: %v\n", err)
			mismatches++
		}
		plan = &pr
	}

	report := renderReport(o, results, plan, reportInfo{
		rows: liRecords, files: len(li.files), bytes: liBytes, orders: ord.files[0].RecordCount,
		duckVersion: duckVersion, load: loadTime, reused: reused,
	})
	fmt.Print(report)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(report), 0o644); err != nil {
			return err
		}
		logf("wrote %s", o.out)
	}
	if mismatches > 0 {
		return fmt.Errorf("%d of %d checks failed: lakesql and DuckDB disagree or a query failed (see above)", mismatches, len(results)+1)
	}
	return nil
}

// openDuck opens an in-process DuckDB with views over the same Parquet
// files as the lakesql datasets.
func openDuck(ctx context.Context, li, ord dataset) (*dbsql.DB, error) {
	db, err := dbsql.Open("duckdb", "")
	if err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	db.SetMaxOpenConns(1)
	for name, d := range map[string]dataset{"lineitem": li, "orders": ord} {
		quoted := make([]string, len(d.paths))
		for i, p := range d.paths {
			quoted[i] = "'" + strings.ReplaceAll(p, "'", "''") + "'"
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM read_parquet([%s])", name, strings.Join(quoted, ", "))); err != nil {
			db.Close()
			return nil, fmt.Errorf("duckdb: %w", err)
		}
	}
	return db, nil
}

func timeLake(ctx context.Context, conn *engine.Conn, q string) ([][]any, float64, error) {
	t0 := time.Now()
	rs, err := conn.Query(ctx, q)
	el := ms(time.Since(t0))
	if err != nil {
		return nil, el, err
	}
	if len(rs) == 0 {
		return nil, el, fmt.Errorf("no result")
	}
	last := rs[len(rs)-1]
	out := make([][]any, len(last.Rows))
	for i, r := range last.Rows {
		out[i] = r
	}
	return out, el, nil
}

func timeDuck(ctx context.Context, db *dbsql.DB, q string) ([][]any, float64, error) {
	t0 := time.Now()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, 0, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, 0, err
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	return out, ms(time.Since(t0)), nil
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ") + "\n"
}

type reportInfo struct {
	rows        int64
	files       int
	bytes       int64
	orders      int64
	duckVersion string
	load        time.Duration
	reused      bool
}

func renderReport(o options, results []*result, plan *planResult, info reportInfo) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# lakesql vs DuckDB\n\n")
	load := "generated and loaded in " + info.load.Round(time.Millisecond).String()
	if info.reused {
		load = "reused from an earlier run's -dir"
	}
	fmt.Fprintf(&sb, "%s · lineitem %d rows in %d Parquet files (%.1f MB), orders %d rows, %s · %d rounds after a warm-up · GOMAXPROCS %d · DuckDB %s · %s/%s\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), info.rows, info.files, float64(info.bytes)/(1<<20), info.orders, load,
		o.rounds, runtime.GOMAXPROCS(0), info.duckVersion, runtime.GOOS, runtime.GOARCH)
	sb.WriteString("| query | rows | lakesql ms | DuckDB ms | lakesql/DuckDB | lakesql Go heap MB | lakesql Go sys MB | lakesql RSS MB | DuckDB RSS MB | check |\n")
	sb.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, r := range results {
		check := "ok"
		if r.err != "" {
			check = "**" + r.err + "**"
		}
		if len(r.lake) == 0 {
			fmt.Fprintf(&sb, "| %s | %d | – | – | – | – | – | – | – | %s |\n", r.q.Name, r.rows, check)
			continue
		}
		duck, ratio, duckRSS := "–", "–", "–"
		if len(r.duck) > 0 {
			duck, ratio, duckRSS = fmt.Sprintf("%.1f", median(r.duck)), fmt.Sprintf("%.2f", median(r.ratio)), mb(r.duckMem.rss)
		}
		fmt.Fprintf(&sb, "| %s | %d | %.1f | %s | %s | %s | %s | %s | %s | %s |\n", r.q.Name, r.rows,
			median(r.lake), duck, ratio, mb(r.lakeMem.heap), mb(r.lakeMem.sys), mb(r.lakeMem.rss), duckRSS, check)
	}
	sb.WriteString("\nTimes are medians over the rounds; the ratio is the median of the per-round ratios. " +
		"Memory is the peak over the rounds: Go heap objects and Go runtime total (≈ MemStats.Sys) sampled every 2 ms, " +
		"and the process's peak RSS (VmHWM")
	if hwmResettable {
		sb.WriteString(", reset before each run")
	} else {
		sb.WriteString(", since the process started: /proc/self/clear_refs was not writable")
	}
	if o.lakeOnly {
		sb.WriteString("); DuckDB was not run (-lakesql-only), so the RSS is lakesql's alone and nothing was cross-checked.\n")
	} else {
		sb.WriteString("), which includes what the other engine keeps resident.\n")
	}
	if plan != nil {
		fmt.Fprintf(&sb, "\nPlanning: a %d-file manifest (%.1f MB encoded, bounds on all 16 columns): manifest.Decode %.1f ms "+
			"(%.1f ms decoding only what pruning reads); scan.Predicates + pruning by a one-month l_shipdate range %.2f ms "+
			"with the manifest's bounds cached (%.2f ms building them), median of %d, keeping %d files (%d overlap the range).\n",
			plan.files, float64(plan.manifestSize)/(1<<20), plan.decodeMS, plan.decodePlanMS, plan.pruneMS, plan.coldMS, o.planReps, plan.kept, plan.want)
	}
	return sb.String()
}

// startCPUProfile profiles the process into path until the returned
// function is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
