package conformance_test

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/sqllogictest/go/logictest/mysql"

	"github.com/lakesql/lakesql/conformance"
)

// Knobs of TestConformance, all optional.
const (
	// envFiles selects files: names as in conformance.Files (".test"
	// optional), separated by commas or spaces.
	envFiles = "LAKESQL_CONFORMANCE_FILES"
	// envRecordTimeout bounds one record (a Go duration; default 60s).
	envRecordTimeout = "LAKESQL_CONFORMANCE_RECORD_TIMEOUT"
	// envFileTimeout bounds one file (a Go duration; default 10m).
	envFileTimeout = "LAKESQL_CONFORMANCE_FILE_TIMEOUT"
)

// maxFailureLines is how many failed records a failing file prints.
const maxFailureLines = 20

// TestConformance runs the sqllogictest conformance files through lakesql's
// MySQL-wire server with the logictest library's MySQL harness, one file
// at a time on one fresh warehouse (each file starts from an empty database
// slt: the harness drops what "show full tables" lists, and the test checks
// nothing is left). It prints a table per file and a closing line
// "N passed, N failed, N skipped", where failed counts records that failed,
// timed out or did not run after a timeout; it fails if any did.
//
// -short runs conformance.ShortFiles; $LAKESQL_CONFORMANCE_FILES names
// others. The corpus is the repository's conformance.DataDir.
func TestConformance(t *testing.T) {
	dir := conformance.DataDir
	files := selectFiles(t, dir)
	recordTimeout := envDuration(t, envRecordTimeout, 60*time.Second)
	fileTimeout := envDuration(t, envFileTimeout, 10*time.Minute)

	e := openEngine(t)
	addr := serve(t, e)
	admin := openDB(t, dsn(addr, ""))
	admin.SetMaxOpenConns(1)
	if _, err := admin.Exec("CREATE DATABASE slt"); err != nil {
		t.Fatalf("CREATE DATABASE slt: %v", err)
	}
	h := &conformance.Harness{
		Harness:       mysql.NewMysqlHarness(dsn(addr, "slt")),
		RecordTimeout: recordTimeout,
		Reset: func() error {
			_, err := admin.Exec("DROP DATABASE IF EXISTS slt")
			if err == nil {
				_, err = admin.Exec("CREATE DATABASE slt")
			}
			return err
		},
		Check: func() error { return checkEmpty(admin) },
	}

	var results []conformance.FileResult
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			fileCap := fileTimeout
			if dl, ok := t.Deadline(); ok {
				// Leave time for a record timing out and the report, so the
				// test reports instead of the binary panicking.
				left := time.Until(dl) - recordTimeout - 30*time.Second
				if left < time.Second {
					res := conformance.FileResult{Name: name, InitErr: errors.New("not run: the test binary's -timeout is nearly up (raise -timeout)")}
					results = append(results, res)
					t.Error(res.InitErr)
					return
				}
				fileCap = min(fileCap, left)
			}
			res := conformance.RunFile(h, filepath.Join(dir, name+".test"), name, fileCap)
			results = append(results, res)
			if !res.OK() {
				t.Error(failureReport(res))
			}
		})
	}
	printTable(os.Stdout, results)
}

// selectFiles returns the files to run, checking that each exists.
func selectFiles(t *testing.T, dir string) []string {
	t.Helper()
	files := conformance.Files
	if v := strings.TrimSpace(os.Getenv(envFiles)); v != "" {
		files = nil
		for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
			files = append(files, strings.TrimSuffix(f, ".test"))
		}
	} else if testing.Short() {
		files = conformance.ShortFiles
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f+".test")); err != nil {
			t.Fatalf("conformance file %s: %v", f, err)
		}
	}
	return files
}

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("$%s=%q: want a positive Go duration such as 90s", name, v)
	}
	return d
}

// checkEmpty fails if database slt holds any table or view.
func checkEmpty(admin *sql.DB) error {
	rows, err := admin.Query("SHOW FULL TABLES FROM slt")
	if err != nil {
		return fmt.Errorf("SHOW FULL TABLES FROM slt: %w", err)
	}
	defer rows.Close()
	var left []string
	for rows.Next() {
		var name, kind string
		if err := rows.Scan(&name, &kind); err != nil {
			return err
		}
		left = append(left, name+" ("+kind+")")
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(left) > 0 {
		return fmt.Errorf("slt still holds %s", strings.Join(left, ", "))
	}
	return nil
}

// failureReport says why a file failed: its start, then the first failed
// records with their query and message.
func failureReport(r conformance.FileResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of %d records failed (%d not ok, %d timeout, %d did not run)", r.Name,
		r.Failed(), r.Run()+r.DidNotRun, r.NotOK, r.Timeout, r.DidNotRun)
	if r.InitErr != nil {
		fmt.Fprintf(&b, "\n    start: %v", r.InitErr)
	}
	if r.CapHit {
		b.WriteString("\n    the file ran out of its time cap ($" + envFileTimeout + ")")
	}
	for i, f := range r.Failures {
		if i == maxFailureLines {
			fmt.Fprintf(&b, "\n    ... and %d more", len(r.Failures)-i)
			break
		}
		b.WriteString("\n    " + f.String())
	}
	for i, line := range r.Other {
		if i == 10 {
			fmt.Fprintf(&b, "\n    ... and %d more lines of other output", len(r.Other)-i)
			break
		}
		b.WriteString("\n    | " + line)
	}
	return b.String()
}

// printTable prints one line per file and the closing totals line.
func printTable(w io.Writer, results []conformance.FileResult) {
	width := len("file")
	for _, r := range results {
		width = max(width, len(r.Name))
	}
	const row = "%-*s %6v %6v %6v %7v %7v %7v %7v %10v\n"
	fmt.Fprintf(w, row, width, "file", "run", "passed", "failed", "timeout", "not run", "skipped", "seconds", "slowest ms")
	var passed, failed, skipped int
	for _, r := range results {
		fmt.Fprintf(w, row, width, r.Name, r.Run(), r.Passed, r.NotOK, r.Timeout, r.DidNotRun, r.Skipped,
			fmt.Sprintf("%.1f", r.Elapsed.Seconds()), r.SlowestMillis)
		passed += r.Passed
		failed += r.Failed()
		skipped += r.Skipped
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", passed, failed, skipped)
}
