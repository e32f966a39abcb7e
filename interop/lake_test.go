package interop

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/engine"
)

// lake is an embedded lakesql warehouse for a test.
type lake struct {
	t    *testing.T
	e    *engine.Engine
	conn *engine.Conn
	dir  string
}

func newLake(t *testing.T) *lake {
	t.Helper()
	dir := t.TempDir()
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: dir, CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	c := e.Connect("root")
	t.Cleanup(func() { c.Close(); e.Close() })
	return &lake{t: t, e: e, conn: c, dir: dir}
}

// exec runs statements separated by ";\n".
func (l *lake) exec(stmts ...string) {
	l.t.Helper()
	for _, s := range stmts {
		if err := l.conn.Exec(context.Background(), s); err != nil {
			l.t.Fatalf("%s: %v", s, err)
		}
	}
}

// query returns a statement's result.
func (l *lake) query(q string) engine.Result {
	l.t.Helper()
	r, err := l.conn.QueryOne(context.Background(), q)
	if err != nil {
		l.t.Fatalf("%s: %v", q, err)
	}
	return r
}

// metadata runs CALL iceberg_metadata and returns the metadata location.
func (l *lake) metadata(table string) string {
	l.t.Helper()
	r := l.query(fmt.Sprintf("CALL iceberg_metadata('%s')", table))
	return r.Rows[0][0].(string)
}

// snapshotIDs lists a table's snapshot ids, oldest first.
func (l *lake) snapshotIDs(table string) []int64 {
	l.t.Helper()
	coll, name, _ := strings.Cut(table, ".")
	r := l.query(fmt.Sprintf("SELECT snapshot_id FROM `%s`.`%s$snapshots` ORDER BY snapshot_id", coll, name))
	var out []int64
	for _, row := range r.Rows {
		out = append(out, toInt64(row[0]))
	}
	return out
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case uint64:
		return int64(x)
	case int32:
		return int64(x)
	case int:
		return int64(x)
	}
	panic(fmt.Sprintf("not an integer: %T", v))
}

// rows is a result as canonical text rows, sorted: one line per row,
// "name=value" cells in column order.
type rows []string

// canonical renders a lakesql SQL result. jsonCols names JSON columns,
// whose text is compared as parsed JSON.
func canonical(r engine.Result, jsonCols map[string]bool) rows {
	out := make(rows, 0, len(r.Rows))
	for _, row := range r.Rows {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = r.Columns[i] + "=" + sqlText(v, jsonCols[r.Columns[i]])
		}
		out = append(out, strings.Join(cells, "|"))
	}
	sort.Strings(out)
	return out
}

// sqlText is the canonical text of a value lakesql returned.
func sqlText(v any, isJSON bool) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64, int:
		return fmt.Sprint(x)
	case bool:
		if x {
			return "1"
		}
		return "0"
	case float32:
		return floatText(float64(x), 32)
	case float64:
		return floatText(x, 64)
	case decimal.Decimal:
		return x.String()
	case string:
		if isJSON {
			return jsonText(x)
		}
		return x
	case []byte:
		return "x" + hex.EncodeToString(x)
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05.000000Z")
	case types.Timespan:
		return microsText(int64(x))
	case types.JSONDocument:
		b, _ := json.Marshal(x.Val)
		return jsonText(string(b))
	}
	return fmt.Sprintf("?%T(%v)", v, v)
}

func floatText(f float64, bits int) string {
	if math.IsNaN(f) {
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

func jsonText(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "badjson:" + s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// microsText renders a time of day in µs as hh:mm:ss.ffffff.
func microsText(us int64) string {
	sign := ""
	if us < 0 {
		sign, us = "-", -us
	}
	s := us / 1e6
	return fmt.Sprintf("%s%02d:%02d:%02d.%06d", sign, s/3600, s/60%60, s%60, us%1e6)
}

// equalRows fails the test with a diff when got and want differ.
func equalRows(t *testing.T, what string, got, want rows) {
	t.Helper()
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return
	}
	t.Errorf("%s: %d rows, lakesql has %d", what, len(got), len(want))
	n := max(len(got), len(want))
	shown := 0
	for i := 0; i < n && shown < 8; i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("  row %d\n   reader:  %s\n   lakesql: %s", i, g, w)
			shown++
		}
	}
}
