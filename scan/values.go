package scan

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/arrowrow"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// fillColumn and timestampValue are the row codec's (arrowrow), under the
// names scan's kernels use.
func fillColumn(rows []sql.Row, j int, arr arrow.Array, t schema.Type) error {
	return arrowrow.FillColumn(rows, j, arr, t)
}

func timestampValue(v int64, unit arrow.TimeUnit) time.Time { return arrowrow.Timestamp(v, unit) }

// nullable is the null test of an Arrow array, for scan's kernels.
type nullable interface{ IsNull(int) bool }
