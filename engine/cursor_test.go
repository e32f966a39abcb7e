package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// cursorProbe compiles testdata/cursor_probe.c against MariaDB
// Connector/C (libmariadb-dev), skipping outside CI and failing in CI
// (where .ci/run installs it) when the headers are missing.
func cursorProbe(t *testing.T) string {
	t.Helper()
	cc := needTool(t, "cc")
	if _, err := os.Stat("/usr/include/mariadb/mysql.h"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("libmariadb-dev is not installed; .ci/run installs it")
		}
		t.Skip("libmariadb-dev is not installed")
	}
	bin := filepath.Join(t.TempDir(), "cursor_probe")
	out, err := exec.Command(cc, "-O1", "-o", bin, filepath.Join("testdata", "cursor_probe.c"),
		"-I/usr/include/mariadb", "-lmariadb").CombinedOutput()
	if err != nil {
		t.Fatalf("cc cursor_probe.c: %v\n%s", err, out)
	}
	return bin
}

// cursorCase is statements run one after another on one connection
// through read-only server-side cursors, prefetch rows per
// COM_STMT_FETCH, over d.big = 0..999.
type cursorCase struct {
	name     string
	prefetch int
	steps    []cursorStep
}

// cursorStep is a statement (see testdata/cursor_probe.c for "@K:") and
// the probe's line for it up to " conn=", as a regexp; maxRows bounds the
// rows=N it reports (0: no bound).
type cursorStep struct {
	query, want string
	maxRows     int
}

const (
	latePanic    = "SELECT panic_late(a) FROM d.big ORDER BY a" // fails at a = 500
	lateOverflow = "SELECT a + 9223372036854775307 FROM d.big ORDER BY a"
	allRows      = "SELECT a FROM d.big ORDER BY a"
	wantAllRows  = `^cursor=1 rows=1000 last=999$`
)

var cursorCases = []cursorCase{
	{"all rows", 100, []cursorStep{{allRows, wantAllRows, 0}}},
	{"one row per fetch", 1, []cursorStep{{"SELECT a, a * 2 FROM d.big WHERE a < 10 ORDER BY a", `^cursor=1 rows=10 last=9$`, 0}}},
	{"empty result", 10, []cursorStep{{"SELECT a FROM d.big WHERE a < 0", `^cursor=1 rows=0 last=$`, 0}}},
	// The rows before the failing one that reach the client depend on
	// how far GMS's pipeline ran ahead; they never pass the failing row.
	{"panic after rows were fetched", 100, []cursorStep{
		{latePanic, `^cursor=1 rows=\d+ error=1105 internal error: .*index out of range \[500\]`, 500},
		{latePanic, `^cursor=1 rows=\d+ error=1105 internal error: .*index out of range \[500\]`, 500},
		{allRows, wantAllRows, 0},
	}},
	{"overflow after rows were fetched", 64, []cursorStep{
		{lateOverflow, `^cursor=1 rows=\d+ error=1690 BIGINT value is out of range`, 501},
		{allRows, wantAllRows, 0},
	}},
	{"one row per fetch, then an error", 1, []cursorStep{
		{latePanic, `^cursor=1 rows=\d+ error=1105 .*index out of range \[500\]`, 500},
		{"SELECT COUNT(*) FROM d.big", `^cursor=1 rows=1 last=1000$`, 0},
	}},
	// GMS computes the first rows before it sends the fields: the error
	// answers the execute, with its cause (vitess alone says "missing
	// result set").
	{"panic at the first row", 10, []cursorStep{
		{"SELECT panic_at(a) FROM d.big WHERE a >= 3 ORDER BY a", `^cursor=0 rows=0 error=1105 internal error: .*index out of range \[3\]`, 0},
		{allRows, wantAllRows, 0},
	}},
	{"error while planning", 10, []cursorStep{
		{"SELECT panic_plan(1)", `^cursor=0 rows=0 error=1105 internal error: test: panic while planning`, 0},
		{allRows, wantAllRows, 0},
	}},
	// A cursor closed with rows unfetched, after its statement may have
	// failed: its error is never sent, and the next cursor ends cleanly.
	{"failed cursor closed early", 128, []cursorStep{
		{"@256:" + latePanic, `^cursor=1 rows=256 closed$`, 0},
		{allRows, wantAllRows, 0},
		{"@1:" + latePanic, `^cursor=1 rows=1 closed$`, 0},
		{"SELECT a FROM d.big WHERE a < 300 ORDER BY a", `^cursor=1 rows=300 last=299$`, 0},
	}},
	// A statement without a result set asked for with a cursor: OK, or
	// its error with the cause, and nothing written.
	{"DML through a cursor", 10, []cursorStep{
		{"INSERT INTO d.ins VALUES (7)", `^cursor=0 affected=1$`, 0},
		{"INSERT INTO d.ins SELECT panic_at(a) FROM d.big", `^cursor=0 rows=0 error=1105 internal error: .*index out of range \[3\]`, 0},
		{"INSERT INTO d.ins VALUES (9223372036854775807 + 1)", `^cursor=0 rows=0 error=1690 BIGINT value is out of range`, 0},
		{"SELECT SUM(x), COUNT(*) FROM d.ins", `^cursor=1 rows=1 last=7$`, 0},
	}},
}

// TestClient_CursorFetchErrors drives MariaDB Connector/C's cursor fetch
// (COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY, then COM_STMT_FETCH), as
// Connector/J's useCursorFetch does: every row arrives, and a statement
// that fails after rows were fetched gives the client an ERR packet for
// the fetch with the real cause (not 2013 "Lost connection"), after which
// the same connection runs the next statements.
func TestClient_CursorFetchErrors(t *testing.T) {
	probe := cursorProbe(t)
	e := enginetest.Open(t)
	registerPanics(t, e)
	var vals []string
	for i := range 1000 {
		vals = append(vals, "("+strconv.Itoa(i)+")")
	}
	if err := e.Connect("root").Exec(context.Background(),
		"CREATE DATABASE d; CREATE TABLE d.ins (x BIGINT); CREATE TABLE d.big (a BIGINT); INSERT INTO d.big VALUES "+strings.Join(vals, ",")); err != nil {
		t.Fatal(err)
	}
	_, addr := serve(t, e, "d")
	for _, c := range cursorCases {
		t.Run(c.name, func(t *testing.T) { runCursorCase(t, probe, addr, c) })
	}
}

var probeRows = regexp.MustCompile(`rows=(\d+)`)

// runCursorCase runs c's steps on one connection of the probe and checks
// each line, and that one connection answered CONNECTION_ID() after every
// statement (libmariadb does not reconnect: a closed connection shows as
// "lost").
func runCursorCase(t *testing.T, probe, addr string, c cursorCase) {
	args := []string{port(addr), "d", strconv.Itoa(c.prefetch)}
	for _, s := range c.steps {
		args = append(args, s.query)
	}
	out, err := exec.Command(probe, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("probe: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(c.steps) {
		t.Fatalf("probe output %q, want %d lines", out, len(c.steps))
	}
	ids := map[string]bool{}
	for i, s := range c.steps {
		head, id, _ := strings.Cut(lines[i], " conn=")
		if !regexp.MustCompile(s.want).MatchString(head) {
			t.Errorf("%s: %q, want %s", s.query, head, s.want)
		}
		if m := probeRows.FindStringSubmatch(head); s.maxRows > 0 && m != nil {
			if n, _ := strconv.Atoi(m[1]); n > s.maxRows {
				t.Errorf("%s: %d rows before the error, more than the %d before the failing row", s.query, n, s.maxRows)
			}
		}
		if _, err := strconv.Atoi(id); err != nil {
			t.Errorf("%s: the connection did not answer the next statement: conn=%s", s.query, id)
		}
		ids[id] = true
	}
	if len(ids) != 1 {
		t.Errorf("connection ids %v, want one connection", ids)
	}
}
