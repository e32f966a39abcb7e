package reliability

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob/faultblob"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/maintenance"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/meta/sqlite"
)

// Environment of the writer child process (TestHelperWriter).
const (
	envWarehouse = "LAKESQL_CRASH_WAREHOUSE"
	envStep      = "LAKESQL_CRASH_STEP"
	envSignal    = "LAKESQL_CRASH_SIGNAL"
	envStart     = "LAKESQL_CRASH_START" // first id the writer inserts
)

const (
	rowsPerFile    = 4
	filesPerCommit = 2
	rowsPerCommit  = rowsPerFile * filesPerCommit
)

var crashTable = catalogstore.Ident{Workspace: "main", Collection: "d", Name: "t"}

// Kill points of the commit protocol (DESIGN.md, Commit protocol).
const (
	stepData      = "data"      // step 1 done: every data file written
	stepManifest  = "manifest"  // step 3 done: the new manifest written
	stepTx        = "tx"        // step 4 running: guards checked, writes staged, write lock held
	stepCommitted = "committed" // step 4 done, before the writer returns
	stepNone      = "none"      // not killed: the control
	stepStorm     = "storm"     // commit in a loop; killed at a random moment
)

// TestHelperWriter is the writer process of the crash tests. It runs only
// when re-executed by them: it opens a catalog on the shared warehouse
// with a faultblob store and a metastore wrapper that stop the writer at
// the chosen step, tell the parent (a signal file listing the objects the
// writer wrote) and wait to be killed.
func TestHelperWriter(t *testing.T) {
	dir := os.Getenv(envWarehouse)
	if dir == "" {
		t.Skip("writer child of the crash tests")
	}
	step, signal := os.Getenv(envStep), os.Getenv(envSignal)
	start, _ := strconv.ParseInt(os.Getenv(envStart), 10, 64)
	ctx := context.Background()

	var mu sync.Mutex
	var written []string
	dataPuts := 0
	block := func() {
		mu.Lock()
		content := strings.Join(written, "\n")
		mu.Unlock()
		if err := writeFileAtomic(signal, content); err != nil {
			fmt.Fprintln(os.Stderr, "signal:", err)
			os.Exit(3)
		}
		time.Sleep(time.Minute) // the parent kills us here
		fmt.Fprintln(os.Stderr, "writer was not killed")
		os.Exit(4)
	}
	inj := faultblob.InjectorFunc(func(op faultblob.Op) error {
		if op.Kind != faultblob.OpPut || op.Phase != faultblob.After {
			return nil
		}
		mu.Lock()
		written = append(written, op.Key)
		isData := strings.Contains(op.Key, "/data/")
		if isData {
			dataPuts++
		}
		n := dataPuts
		mu.Unlock()
		switch {
		case step == stepData && isData && n == filesPerCommit:
			block()
		case step == stepManifest && strings.Contains(op.Key, "/metadata/manifest-"):
			block()
		}
		return nil
	})
	ms, err := sqlite.Open(ctx, filepath.Join(dir, "lakesql.db"))
	if err != nil {
		t.Fatal(err)
	}
	ls, err := local.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := catalogstore.Options{NoAudit: true}
	if step == stepCommitted {
		opts.Hooks.AfterCommit = func(context.Context, *catalogstore.Dataset, *catalogstore.Snapshot) { block() }
	}
	var m meta.Store = ms
	if step == stepTx {
		m = txBlocker{Store: ms, block: block}
	}
	cat := catalogstore.New(m, faultblob.Wrap(ls, inj), opts)

	commits := 1
	if step == stepStorm {
		commits = 1000
	}
	for i := 0; i < commits; i++ {
		first := start + int64(i*rowsPerCommit)
		if err := appendCommit(ctx, cat, first); err != nil {
			t.Fatal(err)
		}
		if step == stepStorm {
			if err := writeFileAtomic(signal, strconv.Itoa(i+1)); err != nil {
				t.Fatal(err)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if err := writeFileAtomic(signal, strings.Join(written, "\n")); err != nil {
		t.Fatal(err)
	}
}

// txBlocker stops the writer inside the metastore transaction of a commit,
// after its guards ran and its writes were staged, while the SQLite write
// transaction (BEGIN IMMEDIATE) is open.
type txBlocker struct {
	meta.Store
	block func()
}

func (b txBlocker) RunTx(ctx context.Context, fn func(ctx context.Context, tx meta.Tx) error) error {
	return b.Store.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		if err := fn(ctx, tx); err != nil {
			return err
		}
		b.block()
		return nil
	})
}

// appendCommit writes filesPerCommit data files of ids first.. and commits
// them as one append, through the catalog's commit protocol.
func appendCommit(ctx context.Context, cat *catalogstore.Catalog, first int64) error {
	ds, err := cat.Dataset(ctx, crashTable)
	if err != nil {
		return err
	}
	var added []manifest.DataFile
	for f := 0; f < filesPerCommit; f++ {
		b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(&ds.Schema))
		for r := 0; r < rowsPerFile; r++ {
			id := first + int64(f*rowsPerFile+r)
			b.Field(0).(*array.Int64Builder).Append(id)
			for c := 1; c < b.Schema().NumFields(); c++ {
				b.Field(c).AppendNull()
			}
		}
		rec := b.NewRecord()
		b.Release()
		key := fmt.Sprintf("%s/data/%s.parquet", ds.Location, uuid.NewString())
		df, err := datafile.Write(ctx, cat.Blob(), key, &ds.Schema, []arrow.Record{rec}, datafile.WriteOptions{})
		rec.Release()
		if err != nil {
			return err
		}
		added = append(added, df)
	}
	_, err = cat.Commit(ctx, crashTable, catalogstore.Commit{
		Operation: catalogstore.OpAppend, Author: "crash-writer", ExpectedUUID: ds.UUID,
		BaseSnapshotID: ds.CurrentSnapshotID, Added: added,
	})
	return err
}

// startWriter re-executes the test binary as the writer child.
func startWriter(t *testing.T, dir, step, signal string, start int64) (*exec.Cmd, chan error, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), envWarehouse+"="+dir, envStep+"="+step, envSignal+"="+signal, envStart+"="+strconv.FormatInt(start, 10))
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, done, out
}

// seedWarehouse creates d.t with 3 rows (snapshot 1) through SQL.
func seedWarehouse(t *testing.T, dir string) {
	t.Helper()
	e := openEngine(t, dir)
	for _, q := range []string{
		"CREATE DATABASE d",
		"CREATE TABLE d.t (id BIGINT, v INT)",
		"INSERT INTO d.t VALUES (1, 10), (2, 20), (3, 30)",
	} {
		embeddedQuery(t, e, q)
	}
	e.Close() // its workers stop with context.Canceled
}

// checkRows asserts through SQL, on a fresh engine, that d.t holds
// exactly ids 1..3 plus the first n ids of the writer's.
func checkRows(t *testing.T, dir string, writerRows int64) {
	t.Helper()
	e := openEngine(t, dir)
	got := embeddedQuery(t, e, "SELECT COUNT(*), COUNT(DISTINCT id), SUM(id) FROM d.t")
	// ids 1,2,3 then 100..100+writerRows-1
	sum := int64(6) + writerRows*100 + writerRows*(writerRows-1)/2
	want := fmt.Sprintf("%d|%d|%d", 3+writerRows, 3+writerRows, sum)
	if len(got) != 1 || got[0] != want {
		t.Fatalf("after the writer: COUNT, DISTINCT, SUM = %v, want %s", got, want)
	}
	// The dataset still takes writes: the killed writer left no lock behind.
	embeddedQuery(t, e, "INSERT INTO d.t VALUES (1000000, 1)")
	if got := embeddedQuery(t, e, "SELECT COUNT(*) FROM d.t"); len(got) != 1 || got[0] != strconv.FormatInt(4+writerRows, 10) {
		t.Fatalf("after a new insert: COUNT = %v, want %d", got, 4+writerRows)
	}
	e.Close()
}

// TestCrash_KillWriterAtEachStep kills a writer process (SIGKILL) at each
// step of the commit protocol: before the pointer moves the dataset stays
// exactly at its previous snapshot and the writer's files are unreferenced
// orphans that the cleanup dry run reports; after it, exactly at the new
// one. History stays linear and the dataset takes new writes either way.
func TestCrash_KillWriterAtEachStep(t *testing.T) {
	cases := []struct {
		step      string
		committed bool
	}{
		{stepData, false},
		{stepManifest, false},
		{stepTx, false},
		{stepCommitted, true},
		{stepNone, true},
	}
	for _, tc := range cases {
		t.Run(tc.step, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			seedWarehouse(t, dir)
			signal := filepath.Join(t.TempDir(), "signal")
			cmd, done, out := startWriter(t, dir, tc.step, signal, 100)

			if tc.step == stepNone {
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("writer failed: %v\n%s", err, out)
					}
				case <-time.After(60 * time.Second):
					t.Fatal("writer did not finish")
				}
			} else {
				if _, ok := waitFile(signal, 60*time.Second); !ok {
					t.Fatalf("writer never reached step %s\n%s", tc.step, out)
				}
				if err := cmd.Process.Kill(); err != nil { // SIGKILL
					t.Fatal(err)
				}
				err := <-done
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != -1 {
					t.Fatalf("writer was not killed by the signal: %v\n%s", err, out)
				}
			}
			content, _ := os.ReadFile(signal)
			var written []string
			for _, k := range strings.Split(string(content), "\n") {
				if k != "" {
					written = append(written, k)
				}
			}
			if len(written) < filesPerCommit {
				t.Fatalf("writer reported %d objects written: %q", len(written), written)
			}

			// The metastore and the store as a fresh process sees them.
			later := func() time.Time { return time.Now().Add(2 * time.Hour) }
			cat := catalogOn(t, dir, later)
			ds, snaps := lineage(t, cat, crashTable)
			wantHead := int64(1)
			if tc.committed {
				wantHead = 2
			}
			if ds.CurrentSnapshotID != wantHead {
				t.Fatalf("head %d, want %d", ds.CurrentSnapshotID, wantHead)
			}
			refs := referenced(t, cat, ds, snaps)
			for _, k := range written {
				if _, err := cat.Blob().Stat(context.Background(), k); err != nil {
					t.Errorf("object %s the writer wrote is gone: %v", k, err)
				}
				if tc.committed != refs[k] {
					t.Errorf("object %s of the writer: referenced=%v, want %v", k, refs[k], tc.committed)
				}
			}
			// The cleanup dry run sees the orphans (first sighting:
			// quarantined) and nothing referenced.
			res, err := maintenance.RemoveOrphans(context.Background(), cat, ds, time.Hour, true)
			if err != nil {
				t.Fatalf("orphan dry run: %v", err)
			}
			orphans := map[string]bool{}
			for _, k := range append(res.Quarantined, res.Removed...) {
				orphans[k] = true
				if refs[k] {
					t.Errorf("cleanup dry run reports referenced file %s", k)
				}
			}
			if len(res.Missing) != 0 || len(res.StillReferenced) != 0 {
				t.Errorf("cleanup dry run: missing %v, still referenced %v", res.Missing, res.StillReferenced)
			}
			for _, k := range written {
				if orphans[k] == tc.committed {
					t.Errorf("object %s: orphan=%v in the cleanup dry run, want %v", k, orphans[k], !tc.committed)
				}
			}

			rows := int64(0)
			if tc.committed {
				rows = rowsPerCommit
			}
			checkRows(t, dir, rows)
			lineage(t, catalogOn(t, dir, nil), crashTable)
		})
	}
}

// TestCrash_KillWriterMidStream kills a writer committing in a loop at a
// random moment (so also while SQLite applies or commits the transaction):
// the dataset is always at a whole number of its commits, history is
// linear and every referenced file exists.
func TestCrash_KillWriterMidStream(t *testing.T) {
	for run := 0; run < 3; run++ {
		t.Run(strconv.Itoa(run), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			seedWarehouse(t, dir)
			signal := filepath.Join(t.TempDir(), "signal")
			cmd, done, out := startWriter(t, dir, stepStorm, signal, 100)
			if _, ok := waitFile(signal, 60*time.Second); !ok {
				t.Fatalf("writer never committed\n%s", out)
			}
			time.Sleep(time.Duration(rand.IntN(40)) * time.Millisecond)
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err == nil {
				t.Fatalf("writer finished 1000 commits before the kill\n%s", out)
			}
			acked, _ := os.ReadFile(signal)
			ackedN, _ := strconv.Atoi(strings.TrimSpace(string(acked)))

			cat := catalogOn(t, dir, nil)
			ds, snaps := lineage(t, cat, crashTable)
			commits := ds.CurrentSnapshotID - 1
			// Acknowledged commits are durable; at most the one in flight
			// may have landed on top.
			if commits < int64(ackedN) || commits > int64(ackedN)+1 {
				t.Fatalf("%d writer commits in the history, %d acknowledged", commits, ackedN)
			}
			refs := referenced(t, cat, ds, snaps)
			for k := range refs {
				if _, err := cat.Blob().Stat(context.Background(), k); err != nil {
					t.Errorf("referenced object %s missing: %v", k, err)
				}
			}
			checkRows(t, dir, commits*rowsPerCommit)
			t.Logf("killed after %d acknowledged commits; %d in the history", ackedN, commits)
		})
	}
}
