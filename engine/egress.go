package engine

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/sqlerr"
)

// ruleEnforceEgress is the id of the egress rule (apart from the ids in
// package rewrite).
const ruleEnforceEgress analyzer.RuleId = 10100

// enforceEgress is the analyzer rule (run before the others, on the bound
// plan, so every table the statement names is still there) that guards
// every writing statement by what it writes and what it reads, whatever
// its kind:
//
//   - a materialized view is never the target of a user write (INSERT,
//     REPLACE, UPDATE, DELETE, TRUNCATE): only its refresh writes it;
//   - egress protection: the statement's read set is every lakesql table
//     anywhere in the plan, subqueries included (UPDATE … SET v = (SELECT
//     …), DELETE … WHERE EXISTS, INSERT … SELECT, ON DUPLICATE KEY
//     UPDATE, CTAS). A table read from another workspace than a written
//     table's goes through catalogstore.EnforceEgress before anything is
//     written. A copy within one workspace is never egress.
//
// A read-only statement passes untouched.
func enforceEgress(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if err := checkWrites(ctx, n); err != nil {
		return nil, transform.SameTree, err
	}
	return n, transform.SameTree, nil
}

// guardedBuilder runs checkWrites on every plan before it executes. GMS
// analyses the simplest statements (INSERT … VALUES, single-table UPDATE
// and DELETE) with a short batch list that skips pre-analyze rules, so
// enforceEgress alone would not see them; those plans reach the builder
// unoptimised, with every table they read still in place.
type guardedBuilder struct{ inner sql.NodeExecBuilder }

func (b guardedBuilder) Build(ctx *sql.Context, n sql.Node, r sql.Row) (sql.RowIter, error) {
	// On the wire the statement's context is cancelled when it is done:
	// its budget then gives back to the server what it still holds.
	budget.From(ctx).EndWith(ctx)
	if s, ok := ctx.Session.(*Session); ok {
		s.ScopeFileFunctions(false) // planned: the stand-in database ends here
	}
	if !writesAtRoot(n) {
		return b.inner.Build(ctx, n, r)
	}
	if err := checkWrites(ctx, n); err != nil {
		return nil, err
	}
	if id, ok := ctasTarget(n); ok {
		return buildCTAS(ctx, b.inner, n, r, id)
	}
	return b.inner.Build(ctx, n, r)
}

// writesAtRoot reports whether a writing node heads the plan (below at
// most a few single-child wrappers: the query process, the row-count
// accumulator). Subqueries are built once per evaluation, so the builder
// spares them the full walk.
func writesAtRoot(n sql.Node) bool {
	for depth := 0; n != nil && depth < 8; depth++ {
		switch n.(type) {
		case *plan.InsertInto, *plan.Update, *plan.DeleteFrom, *plan.Truncate, *plan.CreateTable, *plan.TableCopier:
			return true
		}
		ch := n.Children()
		if len(ch) != 1 {
			return false
		}
		n = ch[0]
	}
	return false
}

// checkWrites applies the write guards to a plan (see enforceEgress).
func checkWrites(ctx *sql.Context, n sql.Node) error {
	sess, ok := ctx.Session.(*Session)
	if !ok {
		return nil
	}
	targets := writeTargets(n)
	if len(targets) == 0 {
		return nil
	}
	for _, t := range targets {
		if t.table != nil && t.table.Dataset().IsMaterializedView() {
			return sqlerr.Wrap(fmt.Errorf("%w: %s is a materialized view; the %s is refused (only REFRESH MATERIALIZED VIEW writes it)",
				catalogstore.ErrMaterializedViewReadOnly, t.table.Dataset().Ident().Short(), t.verb))
		}
	}
	reads := readTables(n)
	for _, t := range targets {
		var sources []catalogstore.Ident
		for _, r := range reads {
			if id := r.Dataset().Ident(); id.Workspace != t.workspace && !containsIdent(sources, id) {
				sources = append(sources, id)
			}
		}
		if len(sources) == 0 {
			continue
		}
		if err := catalogstore.EnforceEgress(ctx, sess.e.cat, sources, t.workspace, t.what()); err != nil {
			return sqlerr.Wrap(err)
		}
	}
	return nil
}

// writeTarget is one table (or, for CTAS, one table to be) a statement
// writes.
type writeTarget struct {
	verb      string          // "INSERT", "UPDATE", ...
	workspace string          // where the written data lands
	name      string          // ws.coll.t, for messages
	table     *provider.Table // nil for a table CTAS creates
}

func (t writeTarget) what() string { return strings.ToLower(t.verb) + " " + t.name }

// writeTargets lists the lakesql tables the plan writes, found by node
// kind: the plan nodes that write are few (GMS's DML and CTAS nodes),
// while the ways to read are many, so reads are found by walking
// (readTables) and writes by kind.
func writeTargets(n sql.Node) []writeTarget {
	var out []writeTarget
	add := func(verb string, t *provider.Table) {
		if t != nil {
			out = append(out, writeTarget{verb: verb, workspace: t.Dataset().Workspace, name: t.Dataset().Ident().String(), table: t})
		}
	}
	addCreate := func(db sql.Database, name string) {
		if d := lakesqlDatabase(db); d != nil {
			id := catalogstore.Ident{Workspace: d.Workspace(), Collection: d.Collection(), Name: name}
			out = append(out, writeTarget{verb: "CREATE TABLE AS SELECT", workspace: d.Workspace(), name: id.String()})
		}
	}
	transform.Inspect(n, func(n sql.Node) bool {
		switch x := n.(type) {
		case *plan.InsertInto:
			verb := "INSERT"
			if x.IsReplace {
				verb = "REPLACE"
			}
			add(verb, destinationTable(x.Destination))
		case *plan.Update:
			if u, err := plan.GetUpdatable(x.Child); err == nil {
				if t := asProviderTable(u); t != nil {
					add("UPDATE", t)
					return true
				}
			}
			// A multi-table UPDATE: every table of the join may be written.
			for _, t := range tablesOf(x.Child) {
				add("UPDATE", t)
			}
		case *plan.DeleteFrom:
			if x.HasExplicitTargets() {
				for _, tn := range x.GetDeleteTargets() {
					add("DELETE", destinationTable(tn))
				}
			} else {
				add("DELETE", destinationTable(x.Child))
			}
		case *plan.Truncate:
			add("TRUNCATE", destinationTable(x.Child))
		case *plan.CreateTable:
			if x.Select() != nil {
				addCreate(x.Database(), x.Name())
			}
		case *plan.TableCopier:
			if ct, ok := x.Destination.(*plan.CreateTable); ok {
				addCreate(ct.Database(), ct.Name())
			} else {
				add("INSERT", destinationTable(x.Destination))
			}
		}
		return true
	})
	return out
}

// tablesOf lists the lakesql tables of a node tree, not looking into
// subquery expressions.
func tablesOf(n sql.Node) []*provider.Table {
	var out []*provider.Table
	transform.Inspect(n, func(n sql.Node) bool {
		if t := providerTable(n); t != nil {
			out = append(out, t)
		}
		return true
	})
	return out
}

// asProviderTable unwraps a GMS table to lakesql's.
func asProviderTable(t sql.Table) *provider.Table {
	for t != nil {
		switch y := t.(type) {
		case *provider.Table:
			return y
		case sql.TableWrapper:
			t = y.Underlying()
		default:
			return nil
		}
	}
	return nil
}

// destinationTable is the lakesql table an INSERT writes, if it is one.
func destinationTable(n sql.Node) *provider.Table {
	var t *provider.Table
	transform.Inspect(n, func(n sql.Node) bool {
		if t == nil {
			t = providerTable(n)
		}
		return t == nil
	})
	return t
}

// lakesqlDatabase unwraps GMS's privileged database to lakesql's.
func lakesqlDatabase(db sql.Database) *provider.Database {
	for db != nil {
		switch d := db.(type) {
		case *provider.Database:
			return d
		case interface{ Unwrap() sql.Database }:
			db = d.Unwrap()
		default:
			return nil
		}
	}
	return nil
}
