package ddl

import (
	"strconv"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/lakesql/lakesql/catalogstore/partition"
)

// The partitioning and maintenance statements: CREATE TABLE ...
// PARTITIONED BY, ALTER TABLE ... SET PARTITIONED BY and OPTIMIZE TABLE.
// Their rules are in grammar.go's table; their executions in
// partition_exec.go.

// PartitionField is one field of a PARTITIONED BY clause: Transform applied
// to Column.
type PartitionField struct {
	Transform partition.Transform
	Column    string
}

// String renders the field as PARTITIONED BY writes it: `col`,
// day(`col`), bucket(16, `col`).
func (f PartitionField) String() string {
	switch f.Transform.Kind() {
	case partition.KindIdentity:
		return quoteName(f.Column)
	case partition.KindBucket, partition.KindTruncate:
		return string(f.Transform.Kind()) + "(" + strconv.Itoa(f.Transform.Param()) + ", " + quoteName(f.Column) + ")"
	}
	return string(f.Transform.Kind()) + "(" + quoteName(f.Column) + ")"
}

func partitionClause(fields []PartitionField) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.String()
	}
	return "PARTITIONED BY (" + strings.Join(parts, ", ") + ")"
}

// CreatePartitionedTable is a MySQL CREATE TABLE followed by a trailing
// PARTITIONED BY (field, ...) clause. The CREATE TABLE part runs through
// the engine as MySQL DDL; the spec is then set on the new dataset.
type CreatePartitionedTable struct {
	Name        TableName
	IfNotExists bool
	// Create is the statement's SQL without the PARTITIONED BY clause.
	Create string
	Fields []PartitionField
}

func (s *CreatePartitionedTable) String() string {
	return s.Create + " " + partitionClause(s.Fields)
}

func (s *CreatePartitionedTable) auth() ast.AuthInformation {
	return tableAuth(ast.AuthType_CREATE, s.Name)
}

// parseCreatePartitionedTable claims CREATE TABLE statements with a
// top-level PARTITIONED BY; it declines every other CREATE TABLE.
func parseCreatePartitionedTable(s *scanner) (Statement, error) {
	start := s.pos
	// Find PARTITIONED BY outside parentheses.
	depth, at := 0, -1
	for i := 0; ; i++ {
		t := s.peekAt(i)
		if t.isEnd() || t.typ == ast.LEX_ERROR {
			break
		}
		switch t.typ {
		case '(':
			depth++
		case ')':
			depth--
		}
		if depth == 0 && t.is("PARTITIONED") && s.peekAt(i+1).is("BY") {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, nil // a plain CREATE TABLE: MySQL's
	}
	st := &CreatePartitionedTable{}
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
	if st.Name, err = parseTableName(s, "table"); err != nil {
		return nil, err
	}
	if s.pos >= start+at {
		return nil, s.errorf(s.peek(), "expected the table definition before PARTITIONED BY")
	}
	// The CREATE TABLE text ends with the token before PARTITIONED.
	s.pos = start + at
	prevEnd := s.toks[s.pos-1].end
	st.Create = strings.TrimSpace(s.src[:prevEnd])
	s.next() // PARTITIONED
	s.next() // BY
	if st.Fields, err = parsePartitionFields(s); err != nil {
		return nil, err
	}
	if len(st.Fields) == 0 {
		return nil, s.errorf(s.peek(), "CREATE TABLE ... PARTITIONED BY needs at least one partition field")
	}
	return st, nil
}

// parsePartitionFields parses ( [field {, field}] ), where field is col,
// transform(col) or transform(N, col).
func parsePartitionFields(s *scanner) ([]PartitionField, error) {
	if t := s.peek(); t.typ != '(' {
		return nil, s.errorf(t, "expected ( after PARTITIONED BY")
	}
	s.next()
	fields := []PartitionField{}
	if s.peek().typ == ')' {
		s.next()
		return fields, nil
	}
	for {
		f, err := parsePartitionField(s)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
		t := s.peek()
		if t.typ == ')' {
			s.next()
			return fields, nil
		}
		if t.typ != ',' {
			return nil, s.errorf(t, "expected , or ) in PARTITIONED BY")
		}
		s.next()
	}
}

func parsePartitionField(s *scanner) (PartitionField, error) {
	first := s.peek()
	if !first.isName() || first.val == "" {
		return PartitionField{}, s.errorf(first, "expected a column or a transform such as day(col) or bucket(16, col)")
	}
	s.next()
	if s.peek().typ != '(' {
		return PartitionField{Transform: partition.Identity, Column: first.val}, nil
	}
	if first.quoted {
		return PartitionField{}, s.errorf(first, "a partition transform name cannot be quoted")
	}
	s.next() // (
	kind := strings.ToLower(first.val)
	spelling := kind
	if kind == string(partition.KindBucket) || kind == string(partition.KindTruncate) {
		n := s.peek()
		if n.typ != ast.INTEGRAL {
			return PartitionField{}, s.errorf(n, "%s needs a whole number first: %s(N, col)", kind, kind)
		}
		s.next()
		if t := s.peek(); t.typ != ',' {
			return PartitionField{}, s.errorf(t, "expected , after %s's number", kind)
		}
		s.next()
		spelling = kind + "[" + n.val + "]"
	}
	tr, err := partition.ParseTransform(spelling)
	if err != nil {
		return PartitionField{}, s.errorf(first, "%s", err.Error())
	}
	col, err := s.name("column")
	if err != nil {
		return PartitionField{}, err
	}
	if t := s.peek(); t.typ != ')' {
		return PartitionField{}, s.errorf(t, "expected ) after the column of %s", kind)
	}
	s.next()
	return PartitionField{Transform: tr, Column: col}, nil
}

// AlterPartitioning is ALTER TABLE t SET PARTITIONED BY (field, ...): spec
// evolution. New files use the new spec; existing files keep theirs. An
// empty list makes new files unpartitioned.
type AlterPartitioning struct {
	Name   TableName
	Fields []PartitionField
}

func (s *AlterPartitioning) String() string {
	return "ALTER TABLE " + s.Name.String() + " SET " + partitionClause(s.Fields)
}

func (s *AlterPartitioning) auth() ast.AuthInformation {
	return tableAuth(ast.AuthType_ALTER, s.Name)
}

// parseAlterPartitioning claims ALTER TABLE t SET PARTITIONED BY and
// declines every other ALTER TABLE.
func parseAlterPartitioning(s *scanner) (Statement, error) {
	name, err := parseTableName(s, "table")
	if err != nil || !s.peek().is("SET") || !s.peekAt(1).is("PARTITIONED") {
		return nil, nil // MySQL's ALTER TABLE
	}
	s.next() // SET
	s.next() // PARTITIONED
	if err := s.expect("BY"); err != nil {
		return nil, err
	}
	fields, err := parsePartitionFields(s)
	if err != nil {
		return nil, err
	}
	return &AlterPartitioning{Name: name, Fields: fields}, nil
}

// OptimizeTable is OPTIMIZE [NO_WRITE_TO_BINLOG | LOCAL] TABLE t [, t ...]:
// one compaction pass per table (automatic strategy), with MySQL's result
// rows (Table, Op, Msg_type, Msg_text).
type OptimizeTable struct {
	Tables []TableName
}

func (s *OptimizeTable) String() string {
	names := make([]string, len(s.Tables))
	for i, n := range s.Tables {
		names[i] = n.String()
	}
	return "OPTIMIZE TABLE " + strings.Join(names, ", ")
}

// auth: MySQL's OPTIMIZE TABLE needs SELECT and INSERT; compaction
// rewrites the table's files, so INSERT is checked.
func (s *OptimizeTable) auth() ast.AuthInformation {
	names := make([]string, 0, 2*len(s.Tables))
	for _, n := range s.Tables {
		names = append(names, n.authNames()...)
	}
	return ast.AuthInformation{AuthType: ast.AuthType_INSERT, TargetType: ast.AuthTargetType_MultipleTableIdentifiers, TargetNames: names}
}

func parseOptimizeTable(s *scanner) (Statement, error) {
	if !s.accept("NO_WRITE_TO_BINLOG") {
		s.accept("LOCAL")
	}
	if !s.accept("TABLE") && !s.accept("TABLES") {
		return nil, s.errorf(s.peek(), "expected TABLE")
	}
	st := &OptimizeTable{}
	for {
		n, err := parseTableName(s, "table")
		if err != nil {
			return nil, err
		}
		st.Tables = append(st.Tables, n)
		if s.peek().typ != ',' {
			return st, nil
		}
		s.next()
	}
}
