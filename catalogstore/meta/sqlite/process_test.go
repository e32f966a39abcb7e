package sqlite

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/meta/metatest"
)

// The child mode of TestTwoProcessCounter: set in the environment of the
// processes it starts.
const (
	childDBEnv = "LAKESQL_SQLITE_CHILD_DB"
	childIDEnv = "LAKESQL_SQLITE_CHILD_ID"
)

const (
	counterPath = "test/counter"
	readyColl   = "test-ready"
	goPath      = "test-go/go"
	perProcess  = 100
)

// TestTwoProcessCounter runs this test binary twice more as children; the
// parent and both children increment one counter in the same file at the
// same time. No increment may be lost.
func TestTwoProcessCounter(t *testing.T) {
	if path := os.Getenv(childDBEnv); path != "" {
		runChild(t, path, os.Getenv(childIDEnv))
		return
	}
	if testing.Short() {
		t.Skip("starts processes")
	}
	path := filepath.Join(t.TempDir(), "meta.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	const children = 2
	var cmds []*exec.Cmd
	for i := range children {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestTwoProcessCounter$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), childDBEnv+"="+path, childIDEnv+"="+fmt.Sprint("child", i))
		out := &prefixWriter{t: t, prefix: fmt.Sprintf("child%d: ", i)}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	// Start together: wait until both children have opened the store.
	deadline := time.Now().Add(30 * time.Second)
	for {
		ready, err := s.List(t.Context(), readyColl)
		if err != nil {
			t.Fatal(err)
		}
		if len(ready) == children {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d children got ready", len(ready), children)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.Set(t.Context(), goPath, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if err := increments(t, s, "parent"); err != nil {
		t.Error(err)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child%d: %v", i, err)
		}
	}
	c, err := metatest.ReadCounter(t.Context(), s, counterPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64((children + 1) * perProcess); c.N != want {
		t.Errorf("counter = %d, want %d", c.N, want)
	}
	t.Logf("%d increments by 3 processes, %d writer switches", c.N, c.Switches)
	if c.Switches < children+1 { // run one after another, they switch twice
		t.Errorf("only %d writer switches: the processes did not interleave", c.Switches)
	}
}

func runChild(t *testing.T, path, id string) {
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Set(t.Context(), meta.Join(readyColl, id), map[string]any{"pid": strconv.Itoa(os.Getpid())}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := s.Get(t.Context(), goPath); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no go signal from the parent")
		}
		time.Sleep(time.Millisecond)
	}
	if err := increments(t, s, id); err != nil {
		t.Fatal(err)
	}
}

// increments makes perProcess increments with short random pauses between
// them, as real writers have, so that the processes take turns rather than
// one of them holding on to the lock.
func increments(t *testing.T, s meta.Store, writer string) error {
	for range perProcess {
		if err := metatest.Increment(t.Context(), s, counterPath, writer, 1); err != nil {
			return err
		}
		time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
	}
	return nil
}

// prefixWriter copies a child's output into the parent's test log.
type prefixWriter struct {
	t      *testing.T
	prefix string
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s%s", w.prefix, p)
	return len(p), nil
}
