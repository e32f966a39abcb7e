package gmssuite

import (
	"context"
	"testing"

	gmsenginetest "github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/enginetest/scriptgen/setup"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/engine"
)

// harness runs GMS's own engine test suites against lakesql: every setup
// script runs through an embedded lakesql connection, so the suites'
// tables are real lakesql datasets (Parquet files and manifests in a
// temporary warehouse, SQLite metastore), and the suites' queries go to
// the engine lakesql configures (its parser, analyzer rules and exec
// builder) on that connection's session.
type harness struct {
	t     *testing.T
	setup []setup.SetupScript
	conn  *engine.Conn
}

var _ gmsenginetest.Harness = (*harness)(nil)

func newHarness(t *testing.T) *harness {
	return &harness{t: t}
}

// Setup implements enginetest.Harness.
func (h *harness) Setup(scripts ...[]setup.SetupScript) {
	h.setup = nil
	for _, s := range scripts {
		h.setup = append(h.setup, s...)
	}
}

// NewEngine implements enginetest.Harness: a fresh warehouse with the
// setup scripts run in it.
func (h *harness) NewEngine(t *testing.T) (gmsenginetest.QueryEngine, error) {
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { e.Close() })
	e.UseInlineJobs()
	h.conn = e.Connect("root")
	setupScripts := h.setup
	if len(setupScripts) == 0 {
		setupScripts = setup.MydbData
	}
	for _, script := range setupScripts {
		for _, q := range script {
			h.runSetup(q)
		}
	}
	return e.GMS(), nil
}

// runSetup runs one setup statement. The suites' setup scripts use
// features lakehouse tables lack by design (AUTO_INCREMENT, foreign keys,
// …): a statement lakesql refuses is logged and skipped, and the queries
// that depend on it fail, and the skip list says why.
func (h *harness) runSetup(q string) {
	if _, err := h.conn.Query(context.Background(), q); err != nil {
		h.t.Logf("setup statement refused, skipped: %.200s: %v", q, err)
	}
}

// NewContext implements enginetest.Harness.
func (h *harness) NewContext() *sql.Context {
	if h.conn == nil {
		h.t.Fatal("NewContext before NewEngine")
	}
	return h.conn.SQLContext(context.Background())
}
