package reliability

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/maintenance"
	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/engine"
)

// Environment of the CREATE MATERIALIZED VIEW child (TestHelperCreateMV).
const (
	envMVWarehouse = "LAKESQL_MVCRASH_WAREHOUSE"
	envMVStep      = "LAKESQL_MVCRASH_STEP" // stop after this many metastore transactions of the statement
	envMVSignal    = "LAKESQL_MVCRASH_SIGNAL"
	envMVMeta      = "LAKESQL_MVCRASH_METASTORE" // "" for the warehouse's SQLite
	envMVStorage   = "LAKESQL_MVCRASH_STORAGE"
	envMVSQL       = "LAKESQL_MVCRASH_SQL" // the statement; "" for createMV
)

const (
	createMV = "CREATE MATERIALIZED VIEW d.mv AS SELECT g, COUNT(*) AS n, SUM(v) AS sv FROM d.src GROUP BY g"
	mvAnswer = "SELECT g, COUNT(*), SUM(v) FROM d.src GROUP BY g ORDER BY g"
	mvRows   = "SELECT g, n, sv FROM d.mv ORDER BY g"
)

// stepCounter counts the metastore transactions that complete once armed
// and stops the process (tells the parent, waits to be killed) after the
// step-th.
type stepCounter struct {
	meta.Store
	armed *atomic.Bool
	n     atomic.Int64
	step  int64
	stop  func()
}

func (s *stepCounter) RunTx(ctx context.Context, fn func(context.Context, meta.Tx) error) error {
	err := s.Store.RunTx(ctx, fn)
	if err == nil && s.armed.Load() && s.n.Add(1) == s.step {
		s.stop()
	}
	return err
}

// TestHelperCreateMV is the child of TestCrash_CreateMaterializedViewAtEachStep:
// it runs CREATE MATERIALIZED VIEW (or the statement in envMVSQL) on the warehouse and stops after the
// step-th metastore transaction the statement completes.
func TestHelperCreateMV(t *testing.T) {
	dir := os.Getenv(envMVWarehouse)
	if dir == "" {
		t.Skip("child of the CREATE MATERIALIZED VIEW crash test")
	}
	step, _ := strconv.ParseInt(os.Getenv(envMVStep), 10, 64)
	signal := os.Getenv(envMVSignal)
	var armed atomic.Bool
	stop := func() {
		if err := writeFileAtomic(signal, "stopped"); err != nil {
			fmt.Fprintln(os.Stderr, "signal:", err)
			os.Exit(3)
		}
		time.Sleep(time.Minute) // the parent kills us here
		os.Exit(4)
	}
	cfg := engine.Config{Warehouse: dir, Metastore: os.Getenv(envMVMeta), Storage: os.Getenv(envMVStorage), NoAudit: true}
	cfg.WrapStores = func(m meta.Store, b blob.Store) (meta.Store, blob.Store) {
		return &stepCounter{Store: m, armed: &armed, step: step, stop: stop}, b
	}
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	c := e.Connect("root")
	defer c.Close()
	armed.Store(true)
	stmt := os.Getenv(envMVSQL)
	if stmt == "" {
		stmt = createMV
	}
	if _, err := c.Query(context.Background(), stmt); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(signal, "done"); err != nil {
		t.Fatal(err)
	}
}

// TestCrash_CreateMaterializedViewAtEachStep (issue 18): a server killed
// (SIGKILL) after any metastore transaction of CREATE MATERIALIZED VIEW
// leaves either nothing under the view's name or the whole view — a
// materialized view with its SQL, statement and the trigger on its source,
// which a refresh fills with the right rows — never a plain table; verify
// finds nothing on the source or the view, and the name takes a new view.
// On SQLite and on the Firestore emulator with fake-gcs-server.
func TestCrash_CreateMaterializedViewAtEachStep(t *testing.T) {
	for _, backend := range []string{"sqlite", "firestore"} {
		t.Run(backend, func(t *testing.T) { createMVAtEachStep(t, backend) })
	}
}

func createMVAtEachStep(t *testing.T, backend string) {
	ctx := context.Background()
	sawPending := false
	for step := int64(1); ; step++ {
		if step > 20 {
			t.Fatal("CREATE MATERIALIZED VIEW ran more than 20 metastore transactions without finishing")
		}
		cfg := mvCrashWarehouse(t, backend)
		e := openConfig(t, cfg)
		for _, q := range []string{"CREATE DATABASE d", "CREATE TABLE d.src (g INT, v INT)", "INSERT INTO d.src VALUES (1, 10), (1, 11), (2, 20)"} {
			embeddedQuery(t, e, q)
		}
		want := embeddedQuery(t, e, mvAnswer)
		e.Close()

		finished := killedAtStep(t, cfg, step, "")

		e = openConfig(t, cfg)
		cat := e.Catalog()
		id := catalogstore.Ident{Workspace: "main", Collection: "d", Name: "mv"}
		src, err := cat.Dataset(ctx, catalogstore.Ident{Workspace: "main", Collection: "d", Name: "src"})
		if err != nil {
			t.Fatal(err)
		}
		mv, err := cat.Dataset(ctx, id)
		switch {
		case errors.Is(err, catalogstore.ErrDatasetNotFound):
			if finished {
				t.Fatalf("step %d: the statement finished but the view does not exist", step)
			}
		case err != nil:
			t.Fatal(err)
		case !mv.IsMaterializedView():
			t.Fatalf("step %d: a plain table %s is left under the view's name", step, id)
		default:
			sawPending = sawPending || mv.LastRefreshStatus == catalogstore.RefreshPending
			if finished && mv.LastRefreshStatus != catalogstore.RefreshOK {
				t.Fatalf("step %d: finished view's status %q", step, mv.LastRefreshStatus)
			}
		}
		for _, ds := range []*catalogstore.Dataset{src, mv} {
			if ds == nil {
				continue
			}
			res, err := maintenance.Verify(ctx, cat, ds)
			if err != nil || len(res.Findings) != 0 {
				t.Fatalf("step %d: verify %s: %+v, %v", step, ds.Name, res, err)
			}
		}
		if mv != nil {
			if mv.LastRefreshStatus == catalogstore.RefreshPending {
				embeddedQuery(t, e, "REFRESH MATERIALIZED VIEW d.mv")
			}
			if got := embeddedQuery(t, e, mvRows); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("step %d: the view holds %v, want %v", step, got, want)
			}
			embeddedQuery(t, e, "DROP MATERIALIZED VIEW d.mv")
		}
		// The name takes a new view, and the source's triggers are its.
		embeddedQuery(t, e, createMV)
		if got := embeddedQuery(t, e, mvRows); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("step %d: the view created again holds %v, want %v", step, got, want)
		}
		if got := embeddedQuery(t, e, "SHOW TRIGGERS FOR d.src"); len(got) != 1 {
			t.Fatalf("step %d: triggers on the source %v, want the view's one", step, got)
		}
		e.Close()
		if finished {
			t.Logf("CREATE MATERIALIZED VIEW completed after %d metastore transactions; killed after each of the first %d", step, step-1)
			break
		}
	}
	if !sawPending {
		t.Error("no kill left a pending view: the test did not stop between the registration and the fill")
	}
}

// mvCrashWarehouse is a fresh warehouse: a local folder with its SQLite
// metastore, or a new Firestore emulator project with a bucket on an
// in-process fake-gcs-server (the child inherits STORAGE_EMULATOR_HOST).
func mvCrashWarehouse(t *testing.T, backend string) engine.Config {
	t.Helper()
	cfg := engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true}
	if backend == "sqlite" {
		return cfg
	}
	flags := scheduleWarehouse(t, backend) // skips (or fails in CI) without the emulator
	for i := 0; i+1 < len(flags); i++ {
		switch flags[i] {
		case "--metastore":
			cfg.Metastore = flags[i+1]
		case "--storage":
			cfg.Storage = flags[i+1]
		}
	}
	return cfg
}

// killedAtStep runs stmt ("" for createMV) in a child process on cfg's
// warehouse, SIGKILLed after the step-th metastore transaction the
// statement completes, and reports whether the statement finished first.
func killedAtStep(t *testing.T, cfg engine.Config, step int64, stmt string) (finished bool) {
	t.Helper()
	signal := filepath.Join(t.TempDir(), "signal")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCreateMV$", "-test.count=1")
	cmd.Env = append(os.Environ(), envMVWarehouse+"="+cfg.Warehouse, envMVStep+"="+strconv.FormatInt(step, 10), envMVSignal+"="+signal,
		envMVMeta+"="+cfg.Metastore, envMVStorage+"="+cfg.Storage, envMVSQL+"="+stmt)
	out, err := runUntilSignal(t, cmd, signal)
	if err != nil {
		t.Fatalf("step %d: %v\n%s", step, err, out)
	}
	return out == "done"
}

// runUntilSignal starts cmd and waits until it writes signal: "done" when
// it finished on its own (it is then waited for), else it is SIGKILLed.
// It returns the signal's content.
func runUntilSignal(t *testing.T, cmd *exec.Cmd, signal string) (string, error) {
	t.Helper()
	buf := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = buf, buf
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	content, ok := waitFile(signal, 90*time.Second)
	if !ok {
		return "", fmt.Errorf("the child never signalled: %s", buf.String())
	}
	if content == "done" {
		if err := <-done; err != nil {
			return "", fmt.Errorf("child: %v: %s", err, buf.String())
		}
		return content, nil
	}
	if err := cmd.Process.Kill(); err != nil {
		return "", err
	}
	<-done
	return content, nil
}
