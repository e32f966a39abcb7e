package reliability

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
)

// serveProc is one `lakesql serve` process of the schedule that can be
// SIGKILLed and started again (on a fresh port) while clients run.
type serveProc struct {
	bin   string
	flags []string // global flags: where the warehouse is
	logs  string   // folder of the processes' stderr files

	mu    sync.Mutex
	addr  string
	gen   int // how many times it was started
	cmd   *exec.Cmd
	done  chan struct{}
	up    bool
	kills int
}

// start runs the process and waits until it accepts connections.
func (p *serveProc) start(ctx context.Context) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := l.Addr().String()
	l.Close()
	p.mu.Lock()
	gen := p.gen + 1
	p.mu.Unlock()
	logf, err := os.Create(filepath.Join(p.logs, fmt.Sprintf("serve-%s-%d.log", strings.ReplaceAll(addr, ":", "_"), gen)))
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(p.bin, append(append([]string{}, p.flags...), "serve", "--addr", addr)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-done:
			return fmt.Errorf("lakesql serve on %s exited at start (log in %s)", addr, logf.Name())
		case <-ctx.Done():
			cmd.Process.Kill()
			return fmt.Errorf("lakesql serve on %s did not start: %w", addr, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	p.mu.Lock()
	p.addr, p.gen, p.cmd, p.done, p.up = addr, gen, cmd, done, true
	p.mu.Unlock()
	return nil
}

// kill SIGKILLs the process and waits until it is gone.
func (p *serveProc) kill() {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.up = false
	p.kills++
	p.mu.Unlock()
	if cmd != nil {
		cmd.Process.Kill()
		<-done
	}
}

// stop interrupts the process (a clean shutdown), killing it if it takes
// more than 10 s.
func (p *serveProc) stop() {
	p.mu.Lock()
	cmd, done, up := p.cmd, p.done, p.up
	p.up = false
	p.mu.Unlock()
	if cmd == nil || !up {
		return
	}
	cmd.Process.Signal(os.Interrupt)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// current is the address and generation of the running process; ok is
// false while it is down.
func (p *serveProc) current() (addr string, gen int, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addr, p.gen, p.up
}

// cluster is the serve processes on one warehouse.
type cluster struct {
	procs []*serveProc
}

// newCluster starts n serve processes on the warehouse named by flags, one
// after the other (the first creates the workspace).
func newCluster(t *testing.T, bin string, flags []string, n int) *cluster {
	t.Helper()
	logs := t.TempDir()
	c := &cluster{}
	for i := 0; i < n; i++ {
		p := &serveProc{bin: bin, flags: flags, logs: logs}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		err := p.start(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		c.procs = append(c.procs, p)
	}
	t.Cleanup(func() {
		for _, p := range c.procs {
			p.stop()
		}
		if t.Failed() {
			tailLogs(t, logs)
		}
	})
	return c
}

// tailLogs prints the end of every serve log, for a failed run.
func tailLogs(t *testing.T, dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if len(b) == 0 {
			continue
		}
		if len(b) > 4000 {
			b = b[len(b)-4000:]
		}
		t.Logf("--- %s (end) ---\n%s", e.Name(), b)
	}
}

// scheduleDSN is a go-sql-driver DSN for addr in collection db.
func scheduleDSN(addr, db string) string {
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", addr, db
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 10*time.Second, 90*time.Second, 90*time.Second
	return cfg.FormatDSN()
}

// schedConn is one client connection of the schedule: a dedicated
// connection (so BEGIN … COMMIT stay on it) and the server-side id that
// KILL names.
type schedConn struct {
	db     *sql.DB
	c      *sql.Conn
	server int
	gen    int
	id     int64
}

// dial opens a connection to server i (in collection db), or fails when
// that process is down.
func (c *cluster) dial(ctx context.Context, i int, db string) (*schedConn, error) {
	addr, gen, ok := c.procs[i].current()
	if !ok {
		return nil, fmt.Errorf("server %d is down", i)
	}
	h, err := sql.Open("mysql", scheduleDSN(addr, db))
	if err != nil {
		return nil, err
	}
	h.SetMaxOpenConns(1)
	cn, err := h.Conn(ctx)
	if err != nil {
		h.Close()
		return nil, err
	}
	sc := &schedConn{db: h, c: cn, server: i, gen: gen}
	if err := cn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&sc.id); err != nil {
		sc.close()
		return nil, err
	}
	return sc, nil
}

// connect dials server prefer, or any other that is up, until ctx ends.
func (c *cluster) connect(ctx context.Context, prefer int, db string) (*schedConn, error) {
	for attempt := 0; ; attempt++ {
		i := (prefer + attempt) % len(c.procs)
		sc, err := c.dial(ctx, i, db)
		if err == nil {
			return sc, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no server answers: %w", err)
		}
		if attempt%len(c.procs) == len(c.procs)-1 {
			time.Sleep(50 * time.Millisecond) // every server is down or restarting
		}
	}
}

func (sc *schedConn) close() {
	sc.c.Close()
	sc.db.Close()
}

// exec runs one statement; a statement that has not answered in 60 s is
// cancelled (the driver closes the connection).
func (sc *schedConn) exec(ctx context.Context, q string) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	_, err := sc.c.ExecContext(ctx, q)
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("%w: %.80s did not answer in 60s", errHung, q)
	}
	return err
}
