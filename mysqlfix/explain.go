package mysqlfix

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// MySQL 8 answers EXPLAIN ANALYZE and EXPLAIN FORMAT=TREE with one text
// column named EXPLAIN holding the plan as a tree of "-> operator" lines,
// with the measured rows, loops and time per operator under ANALYZE.
// GMS v0.20.0 parses both into its DescribeQuery, whose column is "plan",
// whose tree is GMS's debug printer and whose ANALYZE measures nothing
// (the analyzer even skips the rules for the DescribeQuery itself). The
// parser turns both statements into an Explain node that hands the inner
// statement's text to the session (Explainer), which plans, runs and
// renders it; plain EXPLAIN and EXPLAIN PLAN stay GMS's.

// ErrExplainWrites is returned for EXPLAIN ANALYZE of a statement that
// changes data: ANALYZE runs the statement, and an EXPLAIN must not write.
var ErrExplainWrites = errors.New("EXPLAIN ANALYZE runs only statements that do not change data")

// Explainer is what a session implements to answer Explain nodes: plan
// query (and with analyze, run it to the end, discarding its rows) and
// return the plan's lines.
type Explainer interface {
	Explain(ctx *sql.Context, query string, analyze bool) ([]string, error)
}

// Explain is the plan node of EXPLAIN ANALYZE and EXPLAIN FORMAT=TREE:
// a childless sql.ExecSourceRel and the vitess Injectable that carries
// it through GMS's planbuilder. Immutable.
type Explain struct {
	query   string // the inner statement, as SQL text
	analyze bool
}

var (
	_ sql.ExecSourceRel = (*Explain)(nil)
	_ ast.Injectable    = (*Explain)(nil)
)

// explainSchema is the result schema: MySQL's single EXPLAIN column.
var explainSchema = sql.Schema{{Name: "EXPLAIN", Type: types.LongText}}

// explainStatement returns the injected statement for ex when it is one
// the Explain node answers (ANALYZE, or FORMAT=TREE), else nil.
func explainStatement(ex *ast.Explain) ast.Statement {
	tree := strings.EqualFold(ex.ExplainFormat, ast.TreeStr)
	if !ex.Analyze && !tree {
		return nil
	}
	if ex.Analyze && ex.ExplainFormat != "" && !tree {
		return nil // GMS refuses the other formats with its own error
	}
	n := &Explain{query: ast.String(ex.Statement), analyze: ex.Analyze}
	// The inner statement's own privileges are checked when it is
	// planned; EXPLAIN itself needs none.
	return ast.InjectedStatement{Statement: n, Auth: ast.AuthInformation{AuthType: ast.AuthType_IGNORE, TargetType: ast.AuthTargetType_Ignore}}
}

// Query is the inner statement's SQL text.
func (n *Explain) Query() string { return n.query }

// Analyze reports EXPLAIN ANALYZE (the statement runs).
func (n *Explain) Analyze() bool { return n.analyze }

// Resolved implements sql.Node.
func (n *Explain) Resolved() bool { return true }

// String implements sql.Node.
func (n *Explain) String() string {
	if n.analyze {
		return "EXPLAIN ANALYZE " + n.query
	}
	return "EXPLAIN FORMAT=TREE " + n.query
}

// Schema implements sql.Node.
func (n *Explain) Schema() sql.Schema { return explainSchema }

// Children implements sql.Node: none (the inner statement is planned when
// the node runs).
func (n *Explain) Children() []sql.Node { return nil }

// WithChildren implements sql.Node.
func (n *Explain) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(children), 0)
	}
	return n, nil
}

// IsReadOnly implements sql.Node: EXPLAIN never writes (ANALYZE of a
// writing statement is refused when it is planned).
func (n *Explain) IsReadOnly() bool { return true }

// WithResolvedChildren implements ast.Injectable.
func (n *Explain) WithResolvedChildren(children []any) (any, error) {
	if len(children) != 0 {
		return nil, fmt.Errorf("mysqlfix: EXPLAIN takes no resolved children, got %d", len(children))
	}
	return n, nil
}

// RowIter implements sql.ExecSourceRel: one row per plan line.
func (n *Explain) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	ex, ok := ctx.Session.(Explainer)
	if !ok {
		return nil, fmt.Errorf("mysqlfix: session %T cannot explain", ctx.Session)
	}
	lines, err := ex.Explain(ctx, n.query, n.analyze)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, len(lines))
	for i, l := range lines {
		rows[i] = sql.Row{l}
	}
	return sql.RowsToRowIter(rows...), nil
}
