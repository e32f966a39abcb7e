package ddl

import (
	"fmt"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/lakesql/lakesql/catalogstore"
)

// refuseAsOfRange refuses the range forms of time travel in a statement the
// MySQL parser returned: FOR SYSTEM_TIME / FOR VERSION BETWEEN … AND …,
// FROM … TO …, CONTAINED IN (…, …) and ALL (and VERSIONS …). vitess parses
// them, but GMS's planner only knows a point (AS OF) and fails with a
// generic "invalid AS OF expression type"; lakesql reads one snapshot per
// table reference, so these get a clear error naming what to use instead.
func refuseAsOfRange(stmt ast.Statement) error {
	if stmt == nil {
		return nil
	}
	var refused error
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		a, ok := n.(*ast.AsOf)
		if !ok || a == nil || a.Time != nil {
			return true, nil
		}
		form := "ALL"
		switch {
		case a.All:
		case a.StartInclusive && a.EndInclusive:
			form = "CONTAINED IN (…, …)"
		case a.EndInclusive:
			form = "BETWEEN … AND …"
		default:
			form = "FROM … TO …"
		}
		refused = fmt.Errorf("%w: time travel over a range (FOR SYSTEM_TIME/VERSION %s) is not supported; a table reference reads one snapshot: use FOR VERSION AS OF <snapshot id | 'tag'> or FOR SYSTEM_TIME AS OF <timestamp>, and table_changes('collection.table', from, to) for the rows changed in a window",
			catalogstore.ErrNotSupported, form)
		return false, refused
	}, stmt)
	return refused
}
