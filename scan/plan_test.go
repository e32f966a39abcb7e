package scan

import (
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

var planSchema = &schema.Schema{Columns: []schema.Column{
	{ID: 1, Name: "id", Type: schema.Type{Kind: schema.Int64}},
	{ID: 2, Name: "name", Type: schema.Type{Kind: schema.String}, Nullable: true},
	{ID: 3, Name: "day", Type: schema.Type{Kind: schema.Date}, Nullable: true},
}}

func bound(t *testing.T, typ schema.Type, v any) []byte {
	b, err := datafile.EncodeBound(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixture: file i holds ids [10i, 10i+9], names "a".."c", day partition i.
func fixture(t *testing.T) []manifest.DataFile {
	var out []manifest.DataFile
	for i := int64(0); i < 3; i++ {
		day := "2024-01-0" + string(rune('1'+i))
		out = append(out, manifest.DataFile{
			Path: "f" + string(rune('0'+i)), RecordCount: 10, StatsState: manifest.StatsProvided,
			FieldIDs:    []int{1, 2, 3},
			ValueCounts: []int64{10, 10, 10}, NullCounts: []int64{0, i, 0}, NaNCounts: []int64{0, 0, 0},
			LowerBounds: [][]byte{bound(t, planSchema.Columns[0].Type, 10*i), bound(t, planSchema.Columns[1].Type, "a"), bound(t, planSchema.Columns[2].Type, int32(19723+i))},
			UpperBounds: [][]byte{bound(t, planSchema.Columns[0].Type, 10*i+9), bound(t, planSchema.Columns[1].Type, "c"), bound(t, planSchema.Columns[2].Type, int32(19723+i))},
			BoundsExact: []bool{true, true, true},
			SpecID:      1, PartitionValues: []*string{&day},
		})
	}
	// A file whose stats are pending is never pruned by bounds, but its
	// partition value (2024-01-09) is known.
	jan9 := "2024-01-09"
	out = append(out, manifest.DataFile{Path: "pending", RecordCount: 5, StatsState: manifest.StatsPending, SpecID: 1, PartitionValues: []*string{&jan9}})
	return out
}

var planSpecs = []partition.Spec{{ID: 1, Fields: []partition.Field{{SourceID: 3, FieldID: 1000, Name: "day", Transform: partition.Identity}}}}

func col(i int) sql.Expression {
	c := planSchema.Columns[i]
	return expression.NewGetFieldWithTable(i, 1, types.Int64, "d", "t", c.Name, true)
}

func lit(v any, t sql.Type) sql.Expression { return expression.NewLiteral(v, t) }

func paths(files []manifest.DataFile) string {
	s := ""
	for _, f := range files {
		s += f.Path + " "
	}
	return s
}

func TestPrune(t *testing.T) {
	jan2 := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		filter sql.Expression
		want   string
	}{
		{"eq", expression.NewEquals(col(0), lit(int64(15), types.Int64)), "f1 pending "},
		{"eq literal left", expression.NewEquals(lit(int64(25), types.Int64), col(0)), "f2 pending "},
		{"lt", expression.NewLessThan(col(0), lit(int64(10), types.Int64)), "f0 pending "},
		{"ge", expression.NewGreaterThanOrEqual(col(0), lit(int64(19), types.Int64)), "f1 f2 pending "},
		{"between", expression.NewBetween(col(0), lit(int64(11), types.Int64), lit(int64(12), types.Int64)), "f1 pending "},
		{"in", expression.NewInTuple(col(0), expression.NewTuple(lit(int64(1), types.Int64), lit(int64(29), types.Int64))), "f0 f2 pending "},
		{"is null", expression.NewIsNull(col(1)), "f1 f2 pending "},
		{"string outside bounds", expression.NewEquals(col(1), lit("z", types.LongText)), "pending "},
		{"and", expression.NewAnd(expression.NewGreaterThan(col(0), lit(int64(5), types.Int64)), expression.NewLessThan(col(0), lit(int64(15), types.Int64))), "f0 f1 pending "},
		{"or prunes nothing", expression.NewOr(expression.NewEquals(col(0), lit(int64(1), types.Int64)), expression.NewEquals(col(0), lit(int64(25), types.Int64))), "f0 f1 f2 pending "},
		{"fractional on int prunes nothing", expression.NewLessThan(col(0), lit(1.5, types.Float64)), "f0 f1 f2 pending "},
		{"null literal prunes nothing", expression.NewEquals(col(0), lit(nil, types.Null)), "f0 f1 f2 pending "},
		{"partition eq", expression.NewEquals(col(2), lit(jan2, types.Date)), "f1 "},
		{"partition ge", expression.NewGreaterThanOrEqual(col(2), lit(jan2, types.Date)), "f1 f2 pending "},
		{"partition lt", expression.NewLessThan(col(2), lit(jan2, types.Date)), "f0 "},
		{"partition is null", expression.NewIsNull(col(2)), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Prune(fixture(t), planSpecs, Predicates(planSchema, []sql.Expression{c.filter}))
			if paths(got) != c.want {
				t.Fatalf("kept %q, want %q", paths(got), c.want)
			}
		})
	}
}
