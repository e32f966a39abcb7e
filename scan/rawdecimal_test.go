package scan

import (
	"context"
	"fmt"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/blob/local"
)

// TestRawDecimalFilters: filters on a DECIMAL(10,2) stored as INT64
// (read unscaled) select the rows GMS's comparison selects, with NULLs,
// negative values, IN lists and literals beyond int64.
func TestRawDecimalFilters(t *testing.T) {
	ctx := context.Background()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := writeTopNFiles(t, store, "rd", 2, 5000, 1500, false)
	all, err := ReadAll(ctx, Request{Store: store, Files: files, Schema: topNSchema, FieldIDs: []int{1, 2, 3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	dt := types.MustCreateDecimalType(10, 2)
	d := expression.NewGetFieldWithTable(1, 1, dt, "rd", "t", "d", true)
	lit := func(s string) sql.Expression {
		return expression.NewLiteral(decimal.RequireFromString(s), types.MustCreateDecimalType(30, 2))
	}
	huge := "100000000000000000000000.00"
	filters := map[string]sql.Expression{
		"d = 0.25":      expression.NewEquals(d, lit("0.25")),
		"d < -0.50":     expression.NewLessThan(d, lit("-0.50")),
		"d <= 0":        expression.NewLessThanOrEqual(d, lit("0")),
		"d > 0.75":      expression.NewGreaterThan(d, lit("0.75")),
		"d >= -1.25":    expression.NewGreaterThanOrEqual(d, lit("-1.25")),
		"d IN (..)":     expression.NewInTuple(d, expression.NewTuple(lit("0.50"), lit("-1.00"), lit(huge))),
		"d < huge":      expression.NewLessThan(d, lit(huge)),
		"d > -huge":     expression.NewGreaterThan(d, lit("-"+huge)),
		"d IS NULL":     expression.NewIsNull(d),
		"d IS NOT NULL": expression.NewNot(expression.NewIsNull(d)),
	}
	for name, f := range filters {
		p, ok := CompileAggregate(topNSchema, []sql.Expression{f}, nil, []AggSpec{{Kind: AggCountStar}, {Kind: AggSum, FieldID: 2, Scale: 2}, {Kind: AggCount, FieldID: 2}})
		if !ok {
			t.Errorf("%s: not compiled", name)
			continue
		}
		if len(p.rawDecimals) == 0 {
			t.Fatalf("%s: d is not read raw", name)
		}
		rows, _, err := p.Run(ctx, AggInput{Store: store, Files: files, Parallelism: 2})
		if err != nil {
			t.Fatal(err)
		}
		var n, cnt int64
		sum := decimal.Zero
		has := false
		for _, r := range all {
			ok, err := f.Eval(sql.NewEmptyContext(), r)
			if err != nil {
				t.Fatal(err)
			}
			if ok == true || ok == int8(1) {
				n++
				if r[1] != nil {
					cnt++
					sum, has = sum.Add(r[1].(decimal.Decimal)), true
				}
			}
		}
		var wantSum any
		if has {
			wantSum = sum.StringFixed(2)
		}
		gotSum := any(nil)
		if rows[0][1] != nil {
			gotSum = rows[0][1].(decimal.Decimal).StringFixed(2)
		}
		if got, want := fmt.Sprint(rows[0][0], gotSum, rows[0][2]), fmt.Sprint(n, wantSum, cnt); got != want {
			t.Errorf("%s: got %s, want %s", name, got, want)
		}
	}
}
