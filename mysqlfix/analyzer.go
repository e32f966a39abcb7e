package mysqlfix

import "github.com/dolthub/go-mysql-server/sql/analyzer"

// Rule ids of mysqlfix's analyzer rules, above GMS's and the engine's.
const (
	ruleExactSumAvg analyzer.RuleId = 20000 + iota
	ruleDeleteAllToTruncate
	ruleTableFuncNullability
	ruleRecordResultSchema
	ruleHashKeys
	ruleFixNotExists
	ruleExactDecimalComparisons
	ruleCollatedDistinct
	ruleConnectCrossJoins
	ruleInfoSchemaTimeColumns
	ruleSessionZoneFunctions
	ruleStringFunctions
	ruleTableFuncIds
	ruleSetOpOrder
	ruleLikeEscape
	ruleConstInSubquery
)

// AddRules adds the analyzer rules that restore MySQL's behaviour to b:
// the one call the engine makes.
func AddRules(b *analyzer.Builder) *analyzer.Builder {
	if id := gmsProcessTruncate(); id >= 0 {
		b = b.RemoveOnceAfterRule(id).AddPostAnalyzeRule(ruleDeleteAllToTruncate, deleteAllToTruncate)
	}
	// Hash-join keys are fixed after every other rule has placed its
	// joins (post-validation runs before exec indexes are assigned).
	// exactDecimalComparisons after exactSumAvg, which gives SUM and AVG
	// their DECIMAL types.
	return b.AddPreAnalyzeRule(ruleExactSumAvg, exactSumAvg).AddPreAnalyzeRule(ruleTableFuncNullability, tableFuncNullability).
		AddPreAnalyzeRule(ruleTableFuncIds, tableFuncIds).
		AddPreAnalyzeRule(ruleFixNotExists, fixNotExists).
		AddPreAnalyzeRule(ruleExactDecimalComparisons, exactDecimalComparisons).
		AddPreAnalyzeRule(ruleConnectCrossJoins, connectCrossJoins).
		AddPreAnalyzeRule(ruleSessionZoneFunctions, sessionZoneFunctions).
		AddPreAnalyzeRule(ruleStringFunctions, stringFunctions).
		AddPreAnalyzeRule(ruleLikeEscape, likeEscape).
		AddPreAnalyzeRule(ruleConstInSubquery, constInSubquery).
		AddPostAnalyzeRule(ruleSetOpOrder, setOpOrder).
		AddPostAnalyzeRule(ruleCollatedDistinct, collatedDistinct).
		AddPostAnalyzeRule(ruleRecordResultSchema, recordResultSchema).
		AddPostAnalyzeRule(ruleInfoSchemaTimeColumns, infoSchemaTimeColumns).
		AddPostValidationRule(ruleHashKeys, hashKeys)
}
