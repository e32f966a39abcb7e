package ddl

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Statement is a parsed lakehouse statement. The types in this file are
// all of them; each has a rule in rules and an execution in exec.go.
type Statement interface {
	// String renders the statement as canonical SQL (upper-case keywords,
	// backticked names) that parses back to an equal Statement.
	String() string
	// auth is what GMS's authorization handler checks before the
	// statement's node is built.
	auth() ast.AuthInformation
}

// rule recognises one lakehouse statement by its leading keywords.
type rule struct {
	// keywords are the statement's leading words, matched
	// case-insensitively against unquoted tokens.
	keywords []string
	// syntax is the statement's synopsis, for documentation and tests.
	syntax string
	// parse parses what follows the keywords, up to (not including) the
	// end of the statement, which the router checks. It returns (nil, nil)
	// to decline: the statement then goes to the MySQL parser unchanged.
	parse func(s *scanner) (Statement, error)
}

// rules is the lakehouse grammar. A statement whose leading words match
// several rules goes to the rule with the most keywords first; a rule that
// declines passes it to the next one, and then to the MySQL parser.
var rules = []rule{
	{
		keywords: []string{"CREATE", "WORKSPACE"},
		syntax:   "CREATE WORKSPACE [IF NOT EXISTS] w",
		parse:    parseCreateWorkspace,
	},
	{
		keywords: []string{"USE", "WORKSPACE"},
		syntax:   "USE WORKSPACE w",
		parse:    parseUseWorkspace,
	},
	{
		keywords: []string{"SHOW", "WORKSPACES"},
		syntax:   "SHOW WORKSPACES",
		parse:    func(*scanner) (Statement, error) { return &ShowWorkspaces{}, nil },
	},
	{
		keywords: []string{"DROP", "WORKSPACE"},
		syntax:   "DROP WORKSPACE [IF EXISTS] w [CASCADE | RESTRICT]",
		parse:    parseDropWorkspace,
	},
	{
		keywords: []string{"ALTER", "WORKSPACE"},
		syntax:   "ALTER WORKSPACE w SET {egress_protection | deletion_protection} {TO | =} {ON | OFF | TRUE | FALSE}",
		parse:    parseAlterWorkspace,
	},
	{
		keywords: []string{"SHOW", "WORKSPACE"},
		syntax:   "SHOW WORKSPACE PROPERTIES [[FOR] w]",
		parse:    parseShowWorkspaceProperties,
	},
	{
		keywords: []string{"CREATE", "MATERIALIZED", "VIEW"},
		syntax:   "CREATE MATERIALIZED VIEW [IF NOT EXISTS] c.mv AS SELECT ...",
		parse:    parseCreateMaterializedView(false),
	},
	{
		keywords: []string{"CREATE", "OR", "REPLACE", "MATERIALIZED", "VIEW"},
		syntax:   "CREATE OR REPLACE MATERIALIZED VIEW c.mv AS SELECT ...",
		parse:    parseCreateMaterializedView(true),
	},
	{
		keywords: []string{"REFRESH", "MATERIALIZED", "VIEW"},
		syntax:   "REFRESH MATERIALIZED VIEW c.mv",
		parse:    parseRefreshMaterializedView,
	},
	{
		keywords: []string{"DROP", "MATERIALIZED", "VIEW"},
		syntax:   "DROP MATERIALIZED VIEW [IF EXISTS] c.mv",
		parse:    parseDropMaterializedView,
	},
	{
		keywords: []string{"SHOW", "MATERIALIZED", "VIEWS"},
		syntax:   "SHOW MATERIALIZED VIEWS",
		parse:    parseShowMaterializedViews,
	},
	{
		keywords: []string{"SHOW", "TRIGGERS"},
		syntax:   "SHOW TRIGGERS FOR c.ds",
		parse:    parseShowTriggersFor,
	},
	{
		keywords: []string{"CREATE", "TABLE"},
		syntax:   "CREATE TABLE [IF NOT EXISTS] c.t (id BIGINT, ts DATETIME) PARTITIONED BY (day(ts), bucket(16, id))",
		parse:    parseCreatePartitionedTable,
	},
	{
		keywords: []string{"ALTER", "TABLE"},
		syntax:   "ALTER TABLE c.t SET PARTITIONED BY (month(ts))",
		parse:    parseAlterPartitioning,
	},
	{
		keywords: []string{"ALTER", "TABLE"},
		syntax:   "ALTER TABLE c.t RENAME TO c2.u",
		parse:    parseAlterRename,
	},
	{
		keywords: []string{"RENAME", "TABLE"},
		syntax:   "RENAME TABLE c.t TO c2.u [, c.v TO c.w]",
		parse:    parseRenameTable,
	},
	{
		keywords: []string{"OPTIMIZE"},
		syntax:   "OPTIMIZE TABLE c.t",
		parse:    parseOptimizeTable,
	},
}

// Workspace properties ALTER WORKSPACE can set (catalogstore's
// PropEgressProtection and PropDeletionProtection).
const (
	propEgressProtection   = "egress_protection"
	propDeletionProtection = "deletion_protection"
)

// CreateWorkspace is CREATE WORKSPACE [IF NOT EXISTS] name.
type CreateWorkspace struct {
	Name        string
	IfNotExists bool
}

func (s *CreateWorkspace) String() string {
	return "CREATE WORKSPACE " + ifClause(s.IfNotExists, "IF NOT EXISTS ") + quoteName(s.Name)
}

func (s *CreateWorkspace) auth() ast.AuthInformation { return globalAuth(ast.AuthType_CREATE) }

func parseCreateWorkspace(s *scanner) (Statement, error) {
	st := &CreateWorkspace{}
	if s.accept("IF") {
		if err := s.expect("NOT"); err != nil {
			return nil, err
		}
		if err := s.expect("EXISTS"); err != nil {
			return nil, err
		}
		st.IfNotExists = true
	}
	var err error
	st.Name, err = s.name("workspace")
	return st, err
}

// UseWorkspace is USE WORKSPACE name: it switches the session's workspace.
type UseWorkspace struct {
	Name string
}

func (s *UseWorkspace) String() string { return "USE WORKSPACE " + quoteName(s.Name) }

// auth: switching needs no privilege; the collections of the workspace are
// checked when they are used.
func (s *UseWorkspace) auth() ast.AuthInformation {
	return ast.AuthInformation{AuthType: ast.AuthType_IGNORE, TargetType: ast.AuthTargetType_Ignore}
}

func parseUseWorkspace(s *scanner) (Statement, error) {
	if s.peek().isEnd() {
		return nil, nil // USE workspace: MySQL's USE of a database named workspace
	}
	name, err := s.name("workspace")
	return &UseWorkspace{Name: name}, err
}

// ShowWorkspaces is SHOW WORKSPACES.
type ShowWorkspaces struct{}

func (s *ShowWorkspaces) String() string { return "SHOW WORKSPACES" }

func (s *ShowWorkspaces) auth() ast.AuthInformation {
	return ast.AuthInformation{AuthType: ast.AuthType_SHOW, TargetType: ast.AuthTargetType_Ignore}
}

// DropWorkspace is DROP WORKSPACE [IF EXISTS] name [CASCADE | RESTRICT]:
// without CASCADE the workspace must have no collections.
type DropWorkspace struct {
	Name     string
	IfExists bool
	Cascade  bool
}

func (s *DropWorkspace) String() string {
	return "DROP WORKSPACE " + ifClause(s.IfExists, "IF EXISTS ") + quoteName(s.Name) + ifClause(s.Cascade, " CASCADE")
}

func (s *DropWorkspace) auth() ast.AuthInformation { return globalAuth(ast.AuthType_DROP) }

func parseDropWorkspace(s *scanner) (Statement, error) {
	st := &DropWorkspace{}
	if s.accept("IF") {
		if err := s.expect("EXISTS"); err != nil {
			return nil, err
		}
		st.IfExists = true
	}
	var err error
	if st.Name, err = s.name("workspace"); err != nil {
		return nil, err
	}
	if s.accept("CASCADE") {
		st.Cascade = true
	} else {
		s.accept("RESTRICT")
	}
	return st, nil
}

// AlterWorkspace is ALTER WORKSPACE name SET property TO value, for the two
// guard properties.
type AlterWorkspace struct {
	Name string
	// Property is propEgressProtection or propDeletionProtection, in lower
	// case.
	Property string
	Value    bool
}

func (s *AlterWorkspace) String() string {
	return "ALTER WORKSPACE " + quoteName(s.Name) + " SET " + s.Property + " TO " + onOff(s.Value)
}

func (s *AlterWorkspace) auth() ast.AuthInformation { return globalAuth(ast.AuthType_ALTER) }

func parseAlterWorkspace(s *scanner) (Statement, error) {
	name, err := s.name("workspace")
	if err != nil {
		return nil, err
	}
	if err := s.expect("SET"); err != nil {
		return nil, err
	}
	t := s.peek()
	if !t.isName() {
		return nil, s.errorf(t, "expected a workspace property (%s or %s)", propEgressProtection, propDeletionProtection)
	}
	prop := strings.ToLower(t.val)
	if prop != propEgressProtection && prop != propDeletionProtection {
		return nil, s.errorf(t, "unknown workspace property '%s' (known: %s, %s)", t.val, propEgressProtection, propDeletionProtection)
	}
	s.next()
	if !s.accept("TO") {
		if s.peek().typ != '=' {
			return nil, s.errorf(s.peek(), "expected TO")
		}
		s.next()
	}
	v := s.peek()
	st := &AlterWorkspace{Name: name, Property: prop}
	switch {
	case v.is("ON") || v.is("TRUE"):
		st.Value = true
	case v.is("OFF") || v.is("FALSE"):
		st.Value = false
	default:
		return nil, s.errorf(v, "expected ON or OFF")
	}
	s.next()
	return st, nil
}

// ShowWorkspaceProperties is SHOW WORKSPACE PROPERTIES [[FOR] name].
type ShowWorkspaceProperties struct {
	// Name is the workspace; empty for the session's current workspace.
	Name string
}

func (s *ShowWorkspaceProperties) String() string {
	if s.Name == "" {
		return "SHOW WORKSPACE PROPERTIES"
	}
	return "SHOW WORKSPACE PROPERTIES FOR " + quoteName(s.Name)
}

func (s *ShowWorkspaceProperties) auth() ast.AuthInformation {
	return ast.AuthInformation{AuthType: ast.AuthType_SHOW, TargetType: ast.AuthTargetType_Ignore}
}

func parseShowWorkspaceProperties(s *scanner) (Statement, error) {
	if err := s.expect("PROPERTIES"); err != nil {
		return nil, err
	}
	st := &ShowWorkspaceProperties{}
	if s.accept("FOR") || !s.peek().isEnd() {
		var err error
		if st.Name, err = s.name("workspace"); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// globalAuth asks for a global privilege: a workspace is above every
// database (collection) of the MySQL privilege model.
func globalAuth(authType string) ast.AuthInformation {
	return ast.AuthInformation{AuthType: authType, TargetType: ast.AuthTargetType_Global}
}

// quoteName backticks a name, doubling backticks inside it.
func quoteName(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

func ifClause(on bool, clause string) string {
	if on {
		return clause
	}
	return ""
}

func onOff(b bool) string {
	if b {
		return "ON"
	}
	return "OFF"
}
