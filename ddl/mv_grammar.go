package ddl

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// The materialized-view statements. Their rules are in grammar.go's table;
// their executions in mv_exec.go.

// TableName is a table as SQL names it: [db.]name, where db is a
// collection of the session's workspace or `ws.coll` of another one.
type TableName struct {
	DB   string // empty: the session's current database
	Name string
}

func (n TableName) String() string {
	if n.DB == "" {
		return quoteName(n.Name)
	}
	return quoteName(n.DB) + "." + quoteName(n.Name)
}

// authNames are the target names GMS's authorization checks: database (""
// for the current one) and table.
func (n TableName) authNames() []string { return []string{n.DB, n.Name} }

func parseTableName(s *scanner, what string) (TableName, error) {
	first, err := s.name(what)
	if err != nil {
		return TableName{}, err
	}
	if s.peek().typ != '.' {
		return TableName{Name: first}, nil
	}
	s.next()
	second, err := s.name(what)
	if err != nil {
		return TableName{}, err
	}
	return TableName{DB: first, Name: second}, nil
}

func tableAuth(authType string, n TableName) ast.AuthInformation {
	return ast.AuthInformation{AuthType: authType, TargetType: ast.AuthTargetType_SingleTableIdentifier, TargetNames: n.authNames()}
}

// CreateMaterializedView is
//
//	CREATE [OR REPLACE] MATERIALIZED VIEW [IF NOT EXISTS] [db.]mv
//	    [COMMENT [=] 'text'] AS select
//
// It runs as CREATE TABLE ... AS select, then registers the table as a
// materialized view with one refresh trigger per source.
type CreateMaterializedView struct {
	Name        TableName
	OrReplace   bool
	IfNotExists bool
	Comment     string
	// Select is the defining query's text, as written.
	Select string
}

func (s *CreateMaterializedView) String() string {
	var sb strings.Builder
	sb.WriteString("CREATE ")
	sb.WriteString(ifClause(s.OrReplace, "OR REPLACE "))
	sb.WriteString("MATERIALIZED VIEW ")
	sb.WriteString(ifClause(s.IfNotExists, "IF NOT EXISTS "))
	sb.WriteString(s.Name.String())
	if s.Comment != "" {
		sb.WriteString(" COMMENT " + quoteString(s.Comment))
	}
	sb.WriteString(" AS ")
	sb.WriteString(s.Select)
	return sb.String()
}

func (s *CreateMaterializedView) auth() ast.AuthInformation {
	return tableAuth(ast.AuthType_CREATE, s.Name)
}

func parseCreateMaterializedView(orReplace bool) func(s *scanner) (Statement, error) {
	return func(s *scanner) (Statement, error) {
		st := &CreateMaterializedView{OrReplace: orReplace}
		if s.peek().is("IF") {
			t := s.next()
			if err := s.expect("NOT"); err != nil {
				return nil, err
			}
			if err := s.expect("EXISTS"); err != nil {
				return nil, err
			}
			if orReplace {
				return nil, s.errorf(t, "OR REPLACE and IF NOT EXISTS cannot be combined")
			}
			st.IfNotExists = true
		}
		var err error
		if st.Name, err = parseTableName(s, "materialized view"); err != nil {
			return nil, err
		}
		if s.accept("COMMENT") {
			if s.peek().typ == '=' {
				s.next()
			}
			t := s.peek()
			if t.typ != ast.STRING {
				return nil, s.errorf(t, "expected the comment as a quoted string")
			}
			st.Comment = t.val
			s.next()
		}
		as := s.peek()
		if !as.is("AS") {
			return nil, s.errorf(as, "expected AS SELECT ...")
		}
		s.next()
		first := s.peek()
		if !first.is("SELECT") && !first.is("WITH") && first.typ != '(' {
			return nil, s.errorf(first, "expected the view's SELECT")
		}
		for !s.peek().isEnd() {
			if s.peek().typ == ast.LEX_ERROR {
				return nil, s.errorf(s.peek(), "malformed SELECT")
			}
			s.next()
		}
		end := len(s.src)
		if term := s.peek(); term.typ == ';' {
			end = term.end - 1
		}
		st.Select = strings.TrimSpace(s.src[as.end:min(end, len(s.src))])
		return st, nil
	}
}

// RefreshMaterializedView is REFRESH MATERIALIZED VIEW [db.]mv: a full
// recompute, committed as one truncate-and-add-files snapshot.
type RefreshMaterializedView struct {
	Name TableName
}

func (s *RefreshMaterializedView) String() string {
	return "REFRESH MATERIALIZED VIEW " + s.Name.String()
}

func (s *RefreshMaterializedView) auth() ast.AuthInformation {
	return tableAuth(ast.AuthType_INSERT, s.Name)
}

func parseRefreshMaterializedView(s *scanner) (Statement, error) {
	n, err := parseTableName(s, "materialized view")
	return &RefreshMaterializedView{Name: n}, err
}

// DropMaterializedView is DROP MATERIALIZED VIEW [IF EXISTS] [db.]mv. It
// removes the view's triggers from every source, then the view.
type DropMaterializedView struct {
	Name     TableName
	IfExists bool
}

func (s *DropMaterializedView) String() string {
	return "DROP MATERIALIZED VIEW " + ifClause(s.IfExists, "IF EXISTS ") + s.Name.String()
}

func (s *DropMaterializedView) auth() ast.AuthInformation {
	return tableAuth(ast.AuthType_DROP, s.Name)
}

func parseDropMaterializedView(s *scanner) (Statement, error) {
	st := &DropMaterializedView{}
	if s.accept("IF") {
		if err := s.expect("EXISTS"); err != nil {
			return nil, err
		}
		st.IfExists = true
	}
	var err error
	st.Name, err = parseTableName(s, "materialized view")
	return st, err
}

// ShowMaterializedViews is SHOW MATERIALIZED VIEWS [{IN | FROM} db]. Without
// a database it lists the current database's views, or every collection's
// of the workspace when none is selected.
type ShowMaterializedViews struct {
	DB string
}

func (s *ShowMaterializedViews) String() string {
	if s.DB == "" {
		return "SHOW MATERIALIZED VIEWS"
	}
	return "SHOW MATERIALIZED VIEWS IN " + quoteName(s.DB)
}

func (s *ShowMaterializedViews) auth() ast.AuthInformation {
	return ast.AuthInformation{AuthType: ast.AuthType_SHOW, TargetType: ast.AuthTargetType_Ignore}
}

func parseShowMaterializedViews(s *scanner) (Statement, error) {
	st := &ShowMaterializedViews{}
	if s.accept("IN") || s.accept("FROM") {
		var err error
		if st.DB, err = s.name("database"); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// ShowTriggersFor is SHOW TRIGGERS FOR [db.]ds: the refresh triggers
// materialized views registered on a dataset. MySQL's own SHOW TRIGGERS
// [FROM db] [LIKE ...] (GMS's per-row triggers) is left to GMS.
type ShowTriggersFor struct {
	Name TableName
}

func (s *ShowTriggersFor) String() string { return "SHOW TRIGGERS FOR " + s.Name.String() }

func (s *ShowTriggersFor) auth() ast.AuthInformation {
	return ast.AuthInformation{AuthType: ast.AuthType_SHOW, TargetType: ast.AuthTargetType_Ignore}
}

func parseShowTriggersFor(s *scanner) (Statement, error) {
	if !s.accept("FOR") {
		return nil, nil // MySQL's SHOW TRIGGERS
	}
	n, err := parseTableName(s, "table")
	return &ShowTriggersFor{Name: n}, err
}

// quoteString renders a SQL string literal.
func quoteString(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", "''").Replace(v) + "'"
}
