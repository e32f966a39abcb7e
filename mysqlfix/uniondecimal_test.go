package mysqlfix

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// TestUnionDecimalType pins MySQL 8's type of a UNION column over
// DECIMAL and integer branches (Item_type_holder: the widest integer
// part and the widest scale), and that other pairs are left to GMS.
func TestUnionDecimalType(t *testing.T) {
	dec := types.MustCreateDecimalType
	for _, c := range []struct {
		a, b sql.Type
		want string // "" when not a DECIMAL union column
	}{
		{dec(5, 1), dec(3, 2), "decimal(6,2)"},
		{dec(23, 0), dec(3, 2), "decimal(25,2)"},
		{dec(2, 1), types.Int16, "decimal(6,1)"},
		{types.Int32, dec(5, 1), "decimal(11,1)"},
		{types.Uint64, dec(3, 3), "decimal(23,3)"},
		{dec(65, 0), dec(30, 30), "decimal(65,30)"},
		{types.Int32, types.Int64, ""},
		{types.Float64, dec(5, 1), ""},
		{types.Text, dec(5, 1), ""},
	} {
		got, ok := unionDecimalType(c.a, c.b)
		switch {
		case c.want == "" && ok:
			t.Errorf("%s, %s: got %s, want GMS's type", c.a, c.b, got)
		case c.want != "" && (!ok || got.String() != c.want):
			t.Errorf("%s, %s: got %v (%v), want %s", c.a, c.b, got, ok, c.want)
		}
	}
}
