package difftest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
)

// ErrNoMariaDB is returned by StartMariaDB when the mariadbd or
// mariadb-install-db binary is not installed (Debian: mariadb-server). The
// caller skips the differential run outside CI and fails under it.
var ErrNoMariaDB = errors.New("difftest: mariadb-server is not installed (apt-get install mariadb-server)")

// MariaDB is a throwaway MariaDB server: its own datadir and unix socket in
// a temporary folder, no TCP listener, no grant checks. Close stops it.
type MariaDB struct {
	dir    string
	cmd    *exec.Cmd
	exited chan error
	log    *slog.Logger
}

// mariadbSQLMode is MySQL 8.0's default sql_mode (MariaDB's default lacks
// ONLY_FULL_GROUP_BY, NO_ZERO_IN_DATE and NO_ZERO_DATE).
const mariadbSQLMode = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// findBinary looks a server binary up on PATH and in /usr/sbin (which a
// non-root PATH often lacks).
func findBinary(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %s not found", ErrNoMariaDB, name)
}

// StartMariaDB initialises a datadir under dir (which must exist and be
// short enough for a unix socket path, ~100 bytes) and starts mariadbd on
// it, waiting until it answers. It returns ErrNoMariaDB when the server is
// not installed.
func StartMariaDB(ctx context.Context, dir string, log *slog.Logger) (*MariaDB, error) {
	mariadbd, err := findBinary("mariadbd")
	if err != nil {
		return nil, err
	}
	installDB, err := findBinary("mariadb-install-db")
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	// mariadbd refuses to run as root unless told which user to be.
	var asUser []string
	if os.Geteuid() == 0 {
		asUser = []string{"--user=root"}
	}
	install := exec.CommandContext(ctx, installDB, append([]string{"--no-defaults", "--datadir=" + data,
		"--auth-root-authentication-method=normal", "--skip-test-db"}, asUser...)...)
	if out, err := install.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("mariadb-install-db: %w\n%s", err, out)
	}
	m := &MariaDB{dir: dir, exited: make(chan error, 1), log: log}
	args := append([]string{"--no-defaults",
		"--datadir=" + data,
		"--socket=" + m.Socket(),
		"--skip-networking",
		"--pid-file=" + filepath.Join(dir, "mariadbd.pid"),
		"--log-error=" + m.ErrorLog(),
		"--skip-grant-tables",
		"--character-set-server=utf8mb4",
		"--collation-server=utf8mb4_nopad_bin",
		"--default-time-zone=+00:00",
		"--sql-mode=" + mariadbSQLMode,
		"--performance-schema=OFF",
		"--innodb-buffer-pool-size=64M",
		"--innodb-flush-log-at-trx-commit=0",
		"--innodb-doublewrite=0",
	}, asUser...)
	// Not CommandContext: the server outlives StartMariaDB's context.
	m.cmd = exec.Command(mariadbd, args...)
	if err := m.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start mariadbd: %w", err)
	}
	go func() { m.exited <- m.cmd.Wait() }()
	if err := m.waitReady(ctx); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// Socket is the server's unix socket.
func (m *MariaDB) Socket() string { return filepath.Join(m.dir, "mariadbd.sock") }

// ErrorLog is the server's error log, worth reading when it misbehaves.
func (m *MariaDB) ErrorLog() string { return filepath.Join(m.dir, "mariadbd.err") }

// Config is a driver configuration for the server's socket as root.
func (m *MariaDB) Config() *gomysql.Config {
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", m.Socket()
	return cfg
}

// waitReady pings the socket until the server answers, exits, or a minute
// passes (a cold InnoDB start on a loaded machine takes a few seconds).
func (m *MariaDB) waitReady(ctx context.Context) error {
	db, err := sql.Open("mysql", m.Config().FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := db.PingContext(pctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case werr := <-m.exited:
			m.exited <- werr
			log, _ := os.ReadFile(m.ErrorLog())
			return fmt.Errorf("mariadbd exited before it answered (%v):\n%s", werr, log)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("mariadbd did not answer on %s within a minute: %w", m.Socket(), err)
		}
	}
}

// Close stops the server (SIGTERM, then SIGKILL after 30 s) and waits for
// it. It is safe to call twice.
func (m *MariaDB) Close() error {
	if m.cmd == nil || m.cmd.Process == nil {
		return nil
	}
	select {
	case err := <-m.exited:
		m.exited <- err
		return nil
	default:
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-m.exited:
		m.exited <- err
	case <-time.After(30 * time.Second):
		m.log.Warn("mariadbd ignored SIGTERM; killing it", "pid", m.cmd.Process.Pid)
		_ = m.cmd.Process.Kill()
		m.exited <- <-m.exited
	}
	return nil
}
