package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/mysql"
	gomysql "github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// scriptTest is a ScriptTest in GMS's style: statements to set up, then
// assertions. Each runs on a fresh warehouse, embedded and over the wire,
// and both must give the expected rows.
type scriptTest struct {
	name   string
	setup  []string
	checks []check
}

type check struct {
	query string
	want  []string // rows, columns joined by "|"; nil with wantErr
	// wantErr is "CODE fragment": the MySQL error code and a fragment of
	// the message. Empty: the query must succeed.
	wantErr string
	ordered bool // compare rows in order (otherwise sorted)
}

// serve starts the wire server on a free loopback port and returns a
// database/sql handle connected to it.
func serve(t *testing.T, e *engine.Engine, db string) (*sql.DB, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := e.NewServer(engine.ServerConfig{Listener: l})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	t.Cleanup(func() { srv.Close() })
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", l.Addr().String(), db
	cfg.MultiStatements = true
	cfg.ParseTime = false
	h, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	h.SetMaxOpenConns(1) // one session, like the embedded Conn
	t.Cleanup(func() { h.Close() })
	return h, l.Addr().String()
}

// runner runs a statement and returns rows as "a|b" strings.
type runner func(q string) ([]string, error)

func embedded(t *testing.T, e *engine.Engine) runner {
	conn := e.Connect("root")
	t.Cleanup(func() { conn.Close() })
	return func(q string) ([]string, error) {
		rs, err := conn.Query(context.Background(), q)
		if err != nil {
			return nil, err
		}
		if len(rs) == 0 {
			return nil, nil
		}
		last := rs[len(rs)-1]
		if _, ok := last.IsOK(); ok {
			return nil, nil
		}
		var out []string
		for i, r := range last.Rows {
			cells := make([]string, len(r))
			for j := range r {
				if txt, ok := last.Text(i, j); ok {
					cells[j] = txt
				} else {
					cells[j] = "NULL"
				}
			}
			out = append(out, strings.Join(cells, "|"))
		}
		return out, nil
	}
}

func wire(t *testing.T, h *sql.DB) runner {
	return func(q string) ([]string, error) {
		rows, err := h.Query(q)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for {
			cols, _ := rows.Columns()
			for rows.Next() {
				vals := make([]sql.RawBytes, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					return nil, err
				}
				cells := make([]string, len(cols))
				for i, v := range vals {
					if v == nil {
						cells[i] = "NULL"
					} else {
						cells[i] = string(v)
					}
				}
				out = append(out, strings.Join(cells, "|"))
			}
			if !rows.NextResultSet() {
				break
			}
			out = nil // keep the last result set, like the embedded runner
		}
		return out, rows.Err()
	}
}

// errCode extracts the MySQL error number from either side's error.
func errCode(err error) (uint16, string) {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number, me.Message
	}
	var se *mysql.SQLError
	if errors.As(err, &se) {
		return uint16(se.Num), se.Message
	}
	return 0, err.Error()
}

func runScript(t *testing.T, name string, run runner, st scriptTest) {
	t.Helper()
	for _, q := range st.setup {
		if _, err := run(q); err != nil {
			t.Fatalf("%s: setup %q: %v", name, q, err)
		}
	}
	for _, c := range st.checks {
		got, err := run(c.query)
		if c.wantErr != "" {
			if err == nil {
				t.Errorf("%s: %q succeeded (%v), want error %s", name, c.query, got, c.wantErr)
				continue
			}
			code, msg := errCode(err)
			wantCode, frag, _ := strings.Cut(c.wantErr, " ")
			if fmt.Sprint(code) != wantCode || !strings.Contains(strings.ToLower(msg), strings.ToLower(frag)) {
				t.Errorf("%s: %q error = %d %q, want %s", name, c.query, code, msg, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %q: %v", name, c.query, err)
			continue
		}
		want := append([]string(nil), c.want...)
		if !c.ordered {
			sortStrings(got)
			sortStrings(want)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %q\n got: %q\nwant: %q", name, c.query, got, want)
		}
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestScripts runs every script embedded and over the wire.
func TestScripts(t *testing.T) {
	for _, st := range scripts {
		t.Run(st.name, func(t *testing.T) {
			t.Run("embedded", func(t *testing.T) {
				e := enginetest.Open(t)
				runScript(t, st.name, embedded(t, e), st)
			})
			t.Run("wire", func(t *testing.T) {
				e := enginetest.Open(t)
				h, _ := serve(t, e, "")
				runScript(t, st.name, wire(t, h), st)
			})
		})
	}
}
