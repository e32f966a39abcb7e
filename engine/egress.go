package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/sqlerr"
)

// ruleEnforceEgress is the id of the egress rule (apart from the ids in
// package rewrite).
const ruleEnforceEgress analyzer.RuleId = 10100

// enforceEgress is the analyzer rule (run before the others, on the bound
// plan, so every table the statement names is still there) that applies
// egress protection to copies: an INSERT ... SELECT or a CREATE TABLE ... AS SELECT whose
// destination workspace differs from a source table's workspace goes
// through catalogstore.EnforceEgress before anything is written. A copy
// within one workspace is never egress.
func enforceEgress(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	sess, ok := ctx.Session.(*Session)
	if !ok {
		return n, transform.SameTree, nil
	}
	var err error
	transform.Inspect(n, func(n sql.Node) bool {
		if err != nil {
			return false
		}
		var dest string
		var source sql.Node
		var what string
		switch x := n.(type) {
		case *plan.InsertInto:
			if t := destinationTable(x.Destination); t != nil {
				dest, what = t.Dataset().Workspace, "insert into "+t.Dataset().Ident().String()
			}
			source = x.Source
		case *plan.CreateTable:
			if x.Select() == nil {
				return true
			}
			if db := lakesqlDatabase(x.Database()); db != nil {
				dest = db.Workspace()
				what = "create table " + catalogstore.Ident{Workspace: db.Workspace(), Collection: db.Collection(), Name: x.Name()}.String() + " as select"
			}
			source = x.Select()
		case *plan.TableCopier:
			if ct, ok := x.Destination.(*plan.CreateTable); ok {
				if db := lakesqlDatabase(ct.Database()); db != nil {
					dest = db.Workspace()
					what = "create table " + catalogstore.Ident{Workspace: db.Workspace(), Collection: db.Collection(), Name: ct.Name()}.String() + " as select"
				}
			}
			source = x.Source
		default:
			return true
		}
		if dest == "" || source == nil {
			return true
		}
		var sources []catalogstore.Ident
		for _, t := range readTables(source) {
			if id := t.Dataset().Ident(); id.Workspace != dest && !containsIdent(sources, id) {
				sources = append(sources, id)
			}
		}
		if len(sources) > 0 {
			err = catalogstore.EnforceEgress(ctx, sess.e.cat, sources, dest, what)
		}
		return err == nil
	})
	if err != nil {
		return nil, transform.SameTree, sqlerr.Wrap(err)
	}
	return n, transform.SameTree, nil
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
