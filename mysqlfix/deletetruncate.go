package mysqlfix

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GMS's processTruncate turns DELETE FROM t without WHERE, ORDER BY or
// LIMIT into TRUNCATE (one empty snapshot instead of rewriting every
// file), but looks t up in the session's current database: with none
// selected `DELETE FROM d.t` fails 1049 "database not found", and with
// another one selected the conversion is checked against the wrong
// database. GMS runs a single-table DELETE through a fixed rule list of
// its own (analyzer/node_batches.go) that no integrator can change, so
// the parser gives a qualified DELETE FROM d.t its explicit target
// (`DELETE d.t FROM d.t`, the same statement), which takes it through the
// configurable analysis, where deleteAllToTruncate replaces GMS's rule and
// takes the database from the resolved table. It runs after privilege
// checks, so DELETE still needs the DELETE privilege, not TRUNCATE's
// DROP. The TRUNCATE branch of GMS's rule only checks foreign keys, which
// lakesql tables do not have.

// gmsProcessTruncate is the id of GMS's rule, found by name since GMS
// does not export it; -1 if this GMS has no such rule.
func gmsProcessTruncate() analyzer.RuleId {
	for _, r := range analyzer.OnceAfterDefault {
		if r.Id.String() == "processTruncate" {
			return r.Id
		}
	}
	return -1
}

func deleteAllToTruncate(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	d, ok := n.(*plan.DeleteFrom)
	if !ok || !d.Resolved() {
		return n, transform.SameTree, nil
	}
	rt, ok := d.Child.(*plan.ResolvedTable)
	if !ok || rt.SqlDatabase == nil || !onlyTarget(d, rt) {
		return n, transform.SameTree, nil
	}
	for _, col := range rt.Schema() {
		if col.AutoIncrement { // TRUNCATE resets the counter, DELETE does not
			return n, transform.SameTree, nil
		}
	}
	if _, err := plan.GetTruncatable(rt); err != nil {
		return n, transform.SameTree, nil
	}
	return plan.NewTruncate(rt.SqlDatabase.Name(), rt), transform.NewTree, nil
}

// onlyTarget reports whether d deletes from rt alone.
func onlyTarget(d *plan.DeleteFrom, rt *plan.ResolvedTable) bool {
	if !d.HasExplicitTargets() {
		return true
	}
	ts := d.GetDeleteTargets()
	if len(ts) != 1 {
		return false
	}
	t, ok := ts[0].(*plan.ResolvedTable)
	return ok && t.SqlDatabase != nil && strings.EqualFold(t.Name(), rt.Name()) &&
		strings.EqualFold(t.SqlDatabase.Name(), rt.SqlDatabase.Name())
}

// targetDeleteAll gives `DELETE FROM db.t` (no WHERE, ORDER BY, LIMIT or
// alias) its explicit target, which does not change what it deletes.
func targetDeleteAll(d *ast.Delete) {
	if d.Where != nil || len(d.OrderBy) > 0 || d.Limit != nil || len(d.Targets) > 0 || d.With != nil ||
		len(d.Returning) > 0 || len(d.Partitions) > 0 || len(d.TableExprs) != 1 {
		return
	}
	ate, ok := d.TableExprs[0].(*ast.AliasedTableExpr)
	if !ok || !ate.As.IsEmpty() {
		return
	}
	tn, ok := ate.Expr.(ast.TableName)
	if !ok || tn.DbQualifier.IsEmpty() {
		return
	}
	d.Targets = ast.TableNames{tn}
}
