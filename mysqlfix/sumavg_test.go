package mysqlfix

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// TestSumAvgTypes pins MySQL 8's result types (Item_sum_sum and
// Item_sum_avg::fix_length_and_dec).
func TestSumAvgTypes(t *testing.T) {
	for _, c := range []struct {
		arg      sql.Type
		sum, avg string
	}{
		{types.MustCreateDecimalType(12, 2), "decimal(34,2)", "decimal(16,6)"},
		{types.MustCreateDecimalType(38, 10), "decimal(60,10)", "decimal(42,14)"},
		{types.MustCreateDecimalType(65, 30), "decimal(65,30)", "decimal(65,30)"},
		{types.MustCreateDecimalType(50, 27), "decimal(65,27)", "decimal(54,30)"},
		{types.Int8, "decimal(25,0)", "decimal(7,4)"},
		{types.Int32, "decimal(32,0)", "decimal(14,4)"},
		{types.Uint32, "decimal(32,0)", "decimal(14,4)"},
		{types.Int64, "decimal(41,0)", "decimal(23,4)"},
		{types.Uint64, "decimal(42,0)", "decimal(24,4)"},
	} {
		s, ok1 := SumType(c.arg)
		a, ok2 := AvgType(c.arg)
		if !ok1 || !ok2 || s.String() != c.sum || a.String() != c.avg {
			t.Errorf("%s: SUM %v, AVG %v; want %s, %s", c.arg, s, a, c.sum, c.avg)
		}
	}
	for _, arg := range []sql.Type{types.Float64, types.Float32, types.Text, types.Date, types.Datetime} {
		if _, ok := SumType(arg); ok {
			t.Errorf("SUM(%s) is DECIMAL, want DOUBLE", arg)
		}
	}
}

// TestDecimalResult: AVG rounds half away from zero at the result scale;
// SUM only pads its scale.
func TestDecimalResult(t *testing.T) {
	d := decimal.RequireFromString
	for _, c := range []struct {
		sum   string
		n     int64
		scale int32
		avg   bool
		want  string
	}{
		{"10", 1, 2, false, "10.00"},
		{"0.03", 2, 6, true, "0.015000"},
		{"2", 3, 4, true, "0.6667"},
		{"-2", 3, 4, true, "-0.6667"},
		{"1", 8, 2, true, "0.13"},   // 0.125 → 0.13
		{"-1", 8, 2, true, "-0.13"}, // away from zero
	} {
		got := DecimalResult(d(c.sum), c.n, c.scale, c.avg)
		if got.StringFixed(c.scale) != c.want || got.Exponent() != -c.scale {
			t.Errorf("%s/%d at %d: %s (exp %d), want %s", c.sum, c.n, c.scale, got, got.Exponent(), c.want)
		}
	}
}
