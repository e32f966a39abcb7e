package rewrite

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/lakesql/lakesql/provider"
)

// Rule ids of lakesql's analyzer rules, above GMS's own.
const (
	rulePushFilters analyzer.RuleId = 10000 + iota
	ruleFoldLiterals
	ruleAnswerFromManifest
	ruleVectorize
	rulePushLimits
	ruleVectorizeJoin
	ruleDecorrelate
	ruleHashResidualJoins
	ruleFactorOr
	rulePruneJoinColumns
	rulePushSemiJoins
)

// AddRules adds lakesql's analyzer rules to b, in the order they must
// run: scalar subqueries are decorrelated and ORs factored before GMS
// plans joins; literals are folded
// before filters are pushed (so pruning sees typed bounds), the manifest
// answer is tried before the vectorised aggregates (it reads no file at
// all), semi joins are pushed down and keyed lookups added after the
// vectorised join (which takes the joins it can whole), limits are
// pushed, and columns are pruned last, once every node that reads them
// is in place.
func AddRules(b *analyzer.Builder) *analyzer.Builder {
	return b.
		AddPreAnalyzeRule(ruleDecorrelate, decorrelate).
		AddPreAnalyzeRule(ruleFactorOr, factorOr).
		AddPostAnalyzeRule(ruleFoldLiterals, foldLiterals).
		AddPostAnalyzeRule(rulePushFilters, pushFilters).
		AddPostAnalyzeRule(ruleAnswerFromManifest, answerFromManifest).
		AddPostAnalyzeRule(ruleVectorizeJoin, vectorizeJoin).
		AddPostAnalyzeRule(rulePushSemiJoins, pushSemiJoins).
		AddPostAnalyzeRule(ruleHashResidualJoins, hashResidualJoins).
		AddPostAnalyzeRule(ruleVectorize, vectorize).
		AddPostAnalyzeRule(rulePushLimits, pushLimits).
		AddPostAnalyzeRule(rulePruneJoinColumns, pruneJoinColumns)
}

// pushFilters copies the conjuncts of a Filter directly above a lakesql
// table into the table, which prunes files (and row groups) with them. The
// Filter stays: pruning is only a superset, never the filter itself. GMS
// v0.20 never calls sql.FilteredTable, hence the rule. It works only at the
// top scope: rows inside subqueries carry an outer-scope prefix, so field
// indexes there are not the table's.
func pushFilters(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if scope != nil && !scope.IsEmpty() {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		conj := expression.SplitConjunction(f.Expression)
		child, same, err := withFilters(f.Child, conj)
		if err != nil || same {
			return n, transform.SameTree, err
		}
		nf, err := f.WithChildren(child)
		return nf, transform.NewTree, err
	})
}

// withFilters pushes conjuncts into a table under an optional alias.
func withFilters(n sql.Node, conj []sql.Expression) (sql.Node, bool, error) {
	switch x := n.(type) {
	case *plan.TableAlias:
		c, same, err := withFilters(x.Child, conj)
		if err != nil || same {
			return n, true, err
		}
		nn, err := x.WithChildren(c)
		return nn, false, err
	case *plan.ResolvedTable:
		t, ok := x.Table.(*provider.Table)
		if !ok || len(t.Filters()) > 0 {
			return n, true, nil
		}
		nt, err := x.WithTable(t.WithFilters(conj))
		return nt, false, err
	}
	return n, true, nil
}
