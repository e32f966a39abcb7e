package reliability

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// buildLakesql compiles the lakesql binary once for the process tests.
func buildLakesql(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "lakesql")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/lakesql/lakesql/cmd/lakesql")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startServe runs `lakesql serve` on the warehouse and waits until it
// accepts connections.
func startServe(t *testing.T, bin, dir string) *server {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(bin, "serve", "--warehouse", dir, "--addr", addr, "--log-level", "error")
	cmd.Env = append(os.Environ(), "LAKESQL_JOBS=none")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return &server{addr: addr}
		}
		if time.Now().After(deadline) {
			t.Fatalf("lakesql serve on %s did not start: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestConcurrency_TwoServeProcesses: two `lakesql serve` processes on one
// embedded warehouse (one SQLite file, one folder), clients on both: every
// row lands exactly once, readers see whole statements only.
func TestConcurrency_TwoServeProcesses(t *testing.T) {
	bin := buildLakesql(t)
	dir := filepath.Join(t.TempDir(), "lake")
	a := startServe(t, bin, dir) // creates the warehouse and workspace main
	b := startServe(t, bin, dir)
	hammer(t, []*server{a, b})
	snapshotsOf(t, dir)
}
