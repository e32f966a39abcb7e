package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/lakesql/lakesql/mysqlfix"
	"github.com/lakesql/lakesql/sqlerr"
)

// ruleFileGuard is the id of the server-file rule.
const ruleFileGuard analyzer.RuleId = 10110

// fileGuard is the analyzer rule (run before the others, on the bound
// plan) that confines LOAD_FILE, INTO OUTFILE/DUMPFILE and LOAD DATA
// INFILE to Config.SecureFilePriv and the FILE privilege, and refuses
// file writes on a read-only server (mysqlfix.FileGuard). Statements GMS
// analyses with its short batch list (INSERT … VALUES of literals only)
// cannot name a file, so a pre-analyze rule sees every one that can.
func fileGuard(cfg Config) analyzer.RuleFunc {
	return func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		g := mysqlfix.FileGuard{Dir: cfg.SecureFilePriv, ReadOnly: cfg.ReadOnly, Users: a.Catalog.MySQLDb}
		out, same, err := g.Guard(ctx, n)
		if err != nil {
			return nil, transform.SameTree, sqlerr.Wrap(err)
		}
		return out, same, nil
	}
}
