package interop

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/shopspring/decimal"
)

// openTable opens an exported table with iceberg-go, from its metadata.json
// alone (no catalog): what Spark's Hadoop catalog or BigQuery do.
func openTable(t *testing.T, metadataLocation string) *table.Table {
	t.Helper()
	ctx := context.Background()
	tbl, err := table.NewFromLocation(ctx, table.Identifier{"c", "t"}, metadataLocation,
		icebergio.LoadFSFunc(nil, metadataLocation), nil)
	if err != nil {
		t.Fatalf("iceberg-go cannot open %s: %v", metadataLocation, err)
	}
	return tbl
}

// scanRows scans with iceberg-go and renders the rows as canonical does.
func scanRows(t *testing.T, scan *table.Scan, jsonCols map[string]bool) rows {
	t.Helper()
	tab, err := scan.ToArrowTable(context.Background())
	if err != nil {
		t.Fatalf("iceberg-go scan: %v", err)
	}
	defer tab.Release()
	return arrowRows(t, tab, jsonCols)
}

func arrowRows(t *testing.T, tab arrow.Table, jsonCols map[string]bool) rows {
	t.Helper()
	n := int(tab.NumRows())
	cells := make([][]string, n)
	for c := 0; c < int(tab.NumCols()); c++ {
		col := tab.Column(c)
		name := col.Name()
		row := 0
		for _, chunk := range col.Data().Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				cells[row] = append(cells[row], name+"="+arrowText(t, chunk, i, jsonCols[name]))
				row++
			}
		}
	}
	out := make(rows, n)
	for i := range cells {
		out[i] = strings.Join(cells[i], "|")
	}
	sort.Strings(out)
	return out
}

// arrowText is the canonical text of one value iceberg-go read, in the
// same form sqlText gives lakesql's.
func arrowText(t *testing.T, a arrow.Array, i int, isJSON bool) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch x := a.(type) {
	case *array.Boolean:
		if x.Value(i) {
			return "1"
		}
		return "0"
	case *array.Int8:
		return fmt.Sprint(x.Value(i))
	case *array.Int16:
		return fmt.Sprint(x.Value(i))
	case *array.Int32:
		return fmt.Sprint(x.Value(i))
	case *array.Int64:
		return fmt.Sprint(x.Value(i))
	case *array.Uint8:
		return fmt.Sprint(x.Value(i))
	case *array.Uint16:
		return fmt.Sprint(x.Value(i))
	case *array.Float32:
		return floatText(float64(x.Value(i)), 32)
	case *array.Float64:
		return floatText(x.Value(i), 64)
	case *array.Decimal128:
		dt := x.DataType().(*arrow.Decimal128Type)
		return decimal.NewFromBigInt(x.Value(i).BigInt(), -dt.Scale).String()
	case *array.String:
		if isJSON {
			return jsonText(x.Value(i))
		}
		return x.Value(i)
	case *array.LargeString:
		if isJSON {
			return jsonText(x.Value(i))
		}
		return x.Value(i)
	case *array.Binary:
		return "x" + hex.EncodeToString(x.Value(i))
	case *array.LargeBinary:
		return "x" + hex.EncodeToString(x.Value(i))
	case *array.Date32:
		return x.Value(i).ToTime().UTC().Format("2006-01-02T15:04:05.000000Z")
	case *array.Time64:
		return microsText(int64(x.Value(i)))
	case *array.Timestamp:
		return time.UnixMicro(int64(x.Value(i))).UTC().Format("2006-01-02T15:04:05.000000Z")
	}
	t.Fatalf("iceberg-go returned %s, which the test cannot render", a.DataType())
	return ""
}

// plannedFiles counts the data files iceberg-go plans for a filter: its
// own pruning on the partition values and bounds lakesql exported.
func plannedFiles(t *testing.T, scan *table.Scan) int {
	t.Helper()
	tasks, err := scan.PlanFiles(context.Background())
	if err != nil {
		t.Fatalf("iceberg-go plan: %v", err)
	}
	return len(tasks)
}

var _ = big.NewInt
var _ = iceberg.AlwaysTrue{}
