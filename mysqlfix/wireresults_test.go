package mysqlfix

import (
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

func TestPadFraction(t *testing.T) {
	for _, c := range []struct {
		in     string
		digits int
		want   string
	}{
		{"2024-01-01 00:00:00", 6, "2024-01-01 00:00:00.000000"},
		{"2024-01-01 10:00:00.5", 3, "2024-01-01 10:00:00.500"},
		{"2024-01-01 10:00:00.123", 3, "2024-01-01 10:00:00.123"},
		{"2024-01-01 10:00:00.000001", 6, "2024-01-01 10:00:00.000001"},
		{"0000-00-00 00:00:00", 2, "0000-00-00 00:00:00.00"},
		{"2024-01-01 00:00:00", 0, "2024-01-01 00:00:00"},
	} {
		if got := string(PadFraction([]byte(c.in), c.digits)); got != c.want {
			t.Errorf("PadFraction(%q, %d) = %q, want %q", c.in, c.digits, got, c.want)
		}
	}
}

// TestResultFixer: fields of the first batch apply to later batches, and
// a short OK info is padded to the length vitess announces.
func TestResultFixer(t *testing.T) {
	f := resultFixer{}
	first := &sqltypes.Result{
		Fields: []*querypb.Field{{Name: "a", Type: sqltypes.Datetime, Decimals: 6}, {Name: "b", Type: sqltypes.Int64}},
		Rows:   [][]sqltypes.Value{{sqltypes.MakeTrusted(sqltypes.Datetime, []byte("2024-01-01 00:00:00")), sqltypes.NewInt64(1)}},
	}
	next := &sqltypes.Result{Rows: [][]sqltypes.Value{{sqltypes.MakeTrusted(sqltypes.Datetime, []byte("2024-01-01 00:00:00.5")), sqltypes.NULL}, {sqltypes.NULL, sqltypes.NewInt64(2)}}}
	f.fix(first)
	f.fix(next)
	if got := first.Rows[0][0].ToString(); got != "2024-01-01 00:00:00.000000" {
		t.Errorf("first batch: %q", got)
	}
	if got := next.Rows[0][0].ToString(); got != "2024-01-01 00:00:00.500000" || !next.Rows[1][0].IsNull() {
		t.Errorf("later batch: %v", next.Rows)
	}
	ok := &sqltypes.Result{Info: "Statement prepared"}
	(&resultFixer{}).fix(ok)
	if len(ok.Info) != 35 || strings.TrimSpace(ok.Info) != "Statement prepared" {
		t.Errorf("info %q", ok.Info)
	}
}
