package ddl

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/lakesql/lakesql/sqlerr"
)

// executable is a Statement that can run: every Statement type implements
// it in exec.go.
type executable interface {
	Statement
	// schema is the statement's result schema.
	schema() sql.Schema
	// readOnly reports whether the statement changes nothing (it is then
	// allowed on a read-only server).
	readOnly() bool
	// exec runs the statement.
	exec(ctx *sql.Context, s Session) (sql.RowIter, error)
}

// Node is the plan node of a lakehouse statement: a childless
// sql.ExecSourceRel that runs the statement in RowIter. It is also the
// vitess Injectable that ast.InjectedStatement carries through GMS's
// planbuilder. A Node is immutable.
type Node struct {
	stmt executable
}

var (
	_ sql.ExecSourceRel      = (*Node)(nil)
	_ sql.CollationCoercible = (*Node)(nil)
	_ ast.Injectable         = (*Node)(nil)
)

// newNode returns the node that runs stmt.
func newNode(stmt Statement) (*Node, error) {
	e, ok := stmt.(executable)
	if !ok {
		return nil, fmt.Errorf("lakesql: statement %T has no execution", stmt)
	}
	return &Node{stmt: e}, nil
}

// Statement returns the statement the node runs.
func (n *Node) Statement() Statement { return n.stmt }

// Resolved implements sql.Node: a lakehouse statement names catalog
// objects that are resolved when it runs.
func (n *Node) Resolved() bool { return true }

// String implements sql.Node: the statement's canonical SQL.
func (n *Node) String() string { return n.stmt.String() }

// Schema implements sql.Node.
func (n *Node) Schema() sql.Schema { return n.stmt.schema() }

// Children implements sql.Node: none.
func (n *Node) Children() []sql.Node { return nil }

// WithChildren implements sql.Node.
func (n *Node) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(children), 0)
	}
	return n, nil
}

// IsReadOnly implements sql.Node.
func (n *Node) IsReadOnly() bool { return n.stmt.readOnly() }

// CollationCoercibility implements sql.CollationCoercible, as GMS's own
// DDL nodes do.
func (n *Node) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 7
}

// WithResolvedChildren implements ast.Injectable. Lakehouse statements
// carry no expressions for the planbuilder to resolve.
func (n *Node) WithResolvedChildren(children []any) (any, error) {
	if len(children) != 0 {
		return nil, fmt.Errorf("lakesql: %s takes no resolved children, got %d", n.stmt, len(children))
	}
	return n, nil
}

// RowIter implements sql.ExecSourceRel: it runs the statement against the
// session of ctx, which must implement Session.
func (n *Node) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	s, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	it, err := n.stmt.exec(ctx, s)
	return it, sqlerr.Wrap(err)
}
