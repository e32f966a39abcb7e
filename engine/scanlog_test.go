package engine_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine"
)

// TestScanLog: at debug level, a vectorised aggregate logs how far pruning
// cut its scan, naming the table.
func TestScanLog(t *testing.T) {
	ctx := context.Background()
	var buf bytes.Buffer
	e, err := engine.Open(ctx, engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true,
		Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	conn := e.Connect("root")
	for _, q := range []string{"CREATE DATABASE d", "USE d", "CREATE TABLE t (k INT)",
		"INSERT INTO t VALUES (1), (2)", "INSERT INTO t VALUES (10), (20)"} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.QueryOne(ctx, "SELECT SUM(k) FROM t WHERE k >= 10"); err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "msg=scan ") {
			line = l
		}
	}
	for _, want := range []string{"table=d.t", "files=2", "files_read=1", "row_groups=1", "row_groups_read=1"} {
		if !strings.Contains(line, want) {
			t.Errorf("scan log %q lacks %s", line, want)
		}
	}
}
