package conformance

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/sqllogictest/go/logictest"
	"github.com/dolthub/sqllogictest/go/logictest/parser"
)

// Files is the conformance subset of the sqllogictest corpus kept in
// DataDir (see its NOTICE.md), by path under DataDir without ".test".
var Files = []string{
	"select1", "select2", "select3",
	"evidence/in1", "evidence/in2",
	"evidence/slt_lang_createview", "evidence/slt_lang_dropview", "evidence/slt_lang_droptable",
	"random/aggregates/slt_good_0", "random/groupby/slt_good_0",
	"random/select/slt_good_0", "random/expr/slt_good_0",
	"index/orderby/10/slt_good_0", "index/view/10/slt_good_1",
}

// ShortFiles is the subset -short runs: the small files, a few seconds in
// all.
var ShortFiles = []string{
	"select1",
	"evidence/in2",
	"evidence/slt_lang_createview", "evidence/slt_lang_dropview", "evidence/slt_lang_droptable",
}

// DataDir is the sqllogictest corpus, relative to this package's folder
// (where go test runs its tests). It lives in the repository so that a
// clone anywhere runs the same files; nothing is read from outside it.
const DataDir = "testdata/sqllogictest"

// errFileCap is what a capped harness's statements fail with once the
// file's time is up (the runner never sees it: the record times out first).
var errFileCap = errors.New("conformance: file time cap reached")

// Harness wraps a logictest.Harness (the library's MySQL harness) for one
// file at a time: it bounds each record (RecordTimeout) and the whole file
// (the cap given to RunFile), and turns an Init failure into a reported
// error instead of the library's panic. It is not safe for concurrent use.
type Harness struct {
	logictest.Harness
	// RecordTimeout bounds one record; a record over it is logged "timeout"
	// and the rest of the file "did not run". Zero: the library's 20 min.
	RecordTimeout time.Duration
	// Reset, if set, gives the database a clean state when the wrapped
	// harness's Init fails, so the file can still run.
	Reset func() error
	// Check, if set, verifies the database is clean after Init.
	Check func() error

	initErr error // of the running file's Init

	mu       sync.Mutex // guards the fields below
	deadline time.Time  // the running file's cap; zero: none
	done     chan struct{}
	capHit   bool
}

// Init runs the wrapped Init (which drops the tables and views that
// "show full tables" lists), then Check; it records their error for
// RunFile and returns nil, so the library does not panic.
func (h *Harness) Init() error {
	if err := h.Harness.Init(); err != nil {
		h.initErr = fmt.Errorf("harness Init: %w", err)
		if h.Reset != nil {
			if rerr := h.Reset(); rerr != nil {
				h.initErr = fmt.Errorf("%w; reset: %v", h.initErr, rerr)
			}
		}
	}
	if h.Check != nil {
		if err := h.Check(); err != nil {
			h.initErr = errors.Join(h.initErr, fmt.Errorf("not clean after Init: %w", err))
		}
	}
	return nil
}

// GetTimeout is the per-record timeout in seconds (0: the library's).
func (h *Harness) GetTimeout() int64 {
	if h.RecordTimeout <= 0 {
		return 0
	}
	return max(1, int64(h.RecordTimeout/time.Second))
}

// overCap reports whether the file's time is up, and the channel closed
// when the file ends. Once the time is up, statements block on it, so the
// library's record timeout fires and the rest of the file is logged "did
// not run".
func (h *Harness) overCap() (<-chan struct{}, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.deadline.IsZero() || time.Now().Before(h.deadline) {
		return nil, false
	}
	h.capHit = true
	return h.done, true
}

// ExecuteStatementContext runs a statement unless the file is over its cap.
func (h *Harness) ExecuteStatementContext(ctx context.Context, stmt string) error {
	if done, over := h.overCap(); over {
		<-done
		return errFileCap
	}
	return h.Harness.ExecuteStatementContext(ctx, stmt)
}

// ExecuteQueryContext runs a query unless the file is over its cap.
func (h *Harness) ExecuteQueryContext(ctx context.Context, q string) (string, []string, error) {
	if done, over := h.overCap(); over {
		<-done
		return "", nil, errFileCap
	}
	return h.Harness.ExecuteQueryContext(ctx, q)
}

// Failure is one failed record of a file.
type Failure struct {
	Line    int    // the record's line in the file
	Query   string // its SQL
	Message string // the library's message ("timeout" for a timed-out record)
}

func (f Failure) String() string {
	return fmt.Sprintf("line %d: %s\n        -> %s", f.Line, f.Query, f.Message)
}

// FileResult is the outcome of one file, counted from the library's
// per-record log lines.
type FileResult struct {
	Name      string
	Passed    int // "ok"
	NotOK     int // "not ok: ..."
	Timeout   int // "timeout": a record over RecordTimeout, or the file over its cap
	DidNotRun int // "did not run": the records after a timeout
	Skipped   int // "skipped": onlyif/skipif for another engine
	Elapsed   time.Duration
	Failures  []Failure
	// Other holds output lines that are no record's result (a panic's stack
	// trace, which the library prints after its "not ok: Caught panic").
	Other []string
	// InitErr is the error of the harness's Init (the clean-state step) or
	// of the run itself (a file the library could not parse).
	InitErr error
	// CapHit reports that the file ran out of its time cap.
	CapHit bool
	// Slowest is the record that took longest.
	Slowest       Failure
	SlowestMillis int
}

// Run is the number of records executed: passed, failed and timed out.
func (r FileResult) Run() int { return r.Passed + r.NotOK + r.Timeout }

// Failed counts every record that did not pass and was not skipped:
// not ok, timeout and did not run.
func (r FileResult) Failed() int { return r.NotOK + r.Timeout + r.DidNotRun }

// OK reports whether the file passed: no failed record and a clean start.
func (r FileResult) OK() bool { return r.Failed() == 0 && r.InitErr == nil }

// RunFile runs one test file through logictest.RunTestFiles on h, with at
// most fileCap for the whole file (zero: no cap), and counts the results
// from the library's stdout, which it captures for the duration (os.Stdout
// is restored before it returns). name labels the result. RunFile must not
// run concurrently with anything else writing to os.Stdout.
func RunFile(h *Harness, path, name string, fileCap time.Duration) FileResult {
	res := FileResult{Name: name}
	records, err := parser.ParseTestFile(path)
	if err != nil {
		res.InitErr = fmt.Errorf("parse %s: %w", path, err)
		return res
	}
	queries := make(map[int]string, len(records))
	for _, r := range records {
		queries[r.LineNum()] = r.Query()
	}

	h.initErr = nil
	done := make(chan struct{})
	h.mu.Lock()
	h.done, h.capHit, h.deadline = done, false, time.Time{}
	if fileCap > 0 {
		h.deadline = time.Now().Add(fileCap)
	}
	h.mu.Unlock()

	start := time.Now()
	var runErr error
	lines, capErr := captureStdout(func() {
		defer func() {
			if p := recover(); p != nil {
				runErr = fmt.Errorf("logictest panicked: %v", p)
			}
		}()
		logictest.RunTestFiles(h, path)
	})
	close(done)
	res.Elapsed = time.Since(start)
	res.InitErr = errors.Join(h.initErr, runErr, capErr)
	h.mu.Lock()
	res.CapHit = h.capHit
	h.mu.Unlock()

	for _, line := range lines {
		res.add(line, queries)
	}
	return res
}

// logLine matches the prefix of the library's per-record line:
// "<RFC3339 time> <ms> <file>:<line>: <query> <status>".
var logLine = regexp.MustCompile(`^(\S+) (-?\d+) (\S+?):(\d+): (.*)$`)

func (r *FileResult) add(line string, queries map[int]string) {
	m := logLine.FindStringSubmatch(line)
	if m == nil {
		if strings.TrimSpace(line) != "" {
			r.Other = append(r.Other, line)
		}
		return
	}
	ms, _ := strconv.Atoi(m[2])
	lineNum, _ := strconv.Atoi(m[4])
	rest := m[5]
	q, known := queries[lineNum]
	var status string
	if known && strings.HasPrefix(rest, q) {
		status = strings.TrimSpace(rest[len(q):])
	} else {
		// The query was truncated (SQLLOGICTEST_TRUNCATE_QUERIES) or mangled
		// (a failure line goes through Sprintf, so a '%' in the query is).
		switch {
		case strings.Contains(rest, " not ok: "):
			status = rest[strings.Index(rest, " not ok: ")+1:]
		case strings.HasSuffix(rest, " did not run"):
			status = "did not run"
		case strings.HasSuffix(rest, " skipped"):
			status = "skipped"
		case strings.HasSuffix(rest, " timeout"):
			status = "timeout"
		case strings.HasSuffix(rest, " ok"):
			status = "ok"
		}
		if !known {
			q = rest
		}
	}
	rec := Failure{Line: lineNum, Query: q}
	switch {
	case status == "ok":
		r.Passed++
	case status == "skipped":
		r.Skipped++
	case status == "did not run":
		r.DidNotRun++
		return
	case status == "timeout":
		r.Timeout++
		rec.Message = "timeout"
		if r.CapHit {
			rec.Message = "timeout (file time cap reached)"
		}
		r.Failures = append(r.Failures, rec)
	case strings.HasPrefix(status, "not ok: "):
		r.NotOK++
		rec.Message = strings.TrimPrefix(status, "not ok: ")
		r.Failures = append(r.Failures, rec)
	default:
		r.Other = append(r.Other, line)
		return
	}
	if ms > r.SlowestMillis {
		r.SlowestMillis, r.Slowest = ms, rec
	}
}

// captureStdout runs fn with os.Stdout redirected to a pipe and returns the
// lines written to it. os.Stdout is restored before it returns, even if fn
// panics (the panic is passed on after).
func captureStdout(fn func()) (lines []string, err error) {
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("capture stdout: %w", err)
	}
	var got []string
	var readErr error
	read := make(chan struct{})
	go func() {
		defer close(read)
		br := bufio.NewReader(rd)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				got = append(got, strings.TrimSuffix(line, "\n"))
			}
			if err != nil {
				if err != io.EOF {
					readErr = err
					_, _ = io.Copy(io.Discard, rd)
				}
				return
			}
		}
	}()
	orig := os.Stdout
	os.Stdout = wr
	defer func() {
		os.Stdout = orig
		wr.Close()
		<-read
		rd.Close()
		lines, err = got, readErr
	}()
	fn()
	return nil, nil
}
