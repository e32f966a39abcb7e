package gmssuite

import (
	"testing"

	gmsenginetest "github.com/dolthub/go-mysql-server/enginetest"
)

func TestQueries(t *testing.T)     { gmsenginetest.TestQueries(t, newHarness(t)) }
func TestJoinQueries(t *testing.T) { gmsenginetest.TestJoinQueries(t, newHarness(t)) }
func TestInsertInto(t *testing.T)  { gmsenginetest.TestInsertInto(t, newHarness(t)) }
func TestUpdate(t *testing.T)      { gmsenginetest.TestUpdate(t, newHarness(t)) }
func TestDelete(t *testing.T)      { gmsenginetest.TestDelete(t, newHarness(t)) }
func TestScripts(t *testing.T)     { gmsenginetest.TestScripts(t, newHarness(t)) }
func TestColumnDefaults(t *testing.T) {
	gmsenginetest.TestColumnDefaults(t, newHarness(t))
}
