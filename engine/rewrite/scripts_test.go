package rewrite_test

import (
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestPlanScripts runs the plan-shape scripts in testdata: each query
// names the node it must (or must not) be planned with and the rows it
// must return, so a rewrite's fast path and the row path it replaces are
// checked against the same values.
func TestPlanScripts(t *testing.T) {
	enginetest.RunScripts(t, "testdata/*.test")
}
