package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// syncBuffer is a bytes.Buffer for a logger written from several
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// records are the JSON log records written so far.
func (s *syncBuffer) records(t *testing.T) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

// TestPanic_WireLogsTheQuery: a statement that panics over the wire is
// logged at ERROR with its query and the panic's cause, wherever it
// panicked (planning, or executing: in GMS's row streaming), so the cause
// is found from the server log by the statement the client ran.
func TestPanic_WireLogsTheQuery(t *testing.T) {
	logs := &syncBuffer{}
	e := enginetest.OpenWith(t, func(c *engine.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	registerPanics(t, e)
	db, _ := serve(t, e, "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	panicSetup(t, func(q string) error { _, err := conn.ExecContext(ctx, q); return err })
	cases := panicCases
	for _, c := range cases {
		if err := drain(conn.QueryContext(ctx, c.query)); err == nil {
			t.Errorf("%s succeeded", c.query)
		}
	}
	recs := logs.records(t)
	for _, c := range cases {
		found := false
		for _, r := range recs {
			q, _ := r["query"].(string)
			p, _ := r["panic"].(string)
			if r["level"] == "ERROR" && q == c.query && strings.Contains(p, c.cause) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no ERROR record with query %q and panic %q among %d records", c.query, c.cause, len(recs))
		}
	}
}
