package ddl

import (
	"context"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/lakesql/lakesql/sqlerr"
)

// Parser is GMS's sql.Parser with lakesql's statements in front: a
// statement that a rule in rules recognises becomes an
// ast.InjectedStatement holding its *Node; everything else goes to the
// wrapped MySQL parser unchanged, except that MySQL table partitioning is
// refused (GMS would parse and silently drop it).
//
// Install one Parser as both Engine.Parser and sql.GlobalParser (GMS
// re-parses stored views, triggers and procedures with the global one).
// A Parser has no state and is safe for concurrent use.
type Parser struct {
	inner sql.Parser
}

var _ sql.Parser = (*Parser)(nil)

// NewParser wraps inner, the MySQL parser; nil means sql.NewMysqlParser().
// Pass the engine's previous parser, never a *Parser, as inner.
func NewParser(inner sql.Parser) *Parser {
	if inner == nil {
		inner = sql.NewMysqlParser()
	}
	return &Parser{inner: inner}
}

// ParseSimple implements sql.Parser: one statement, default options.
func (p *Parser) ParseSimple(query string) (_ ast.Statement, err error) {
	defer func() { err = sqlerr.Wrap(err) }()
	query, _ = mysqlCompat(query, ast.ParserOptions{})
	stmt, _, ok, err := recognizeOne(query, ast.ParserOptions{})
	if ok {
		if err != nil {
			return nil, err
		}
		return inject(stmt)
	}
	st, err := p.inner.ParseSimple(query)
	if err != nil {
		return st, err
	}
	if err := refuseMySQLPartitioning(st, query, ast.ParserOptions{}); err != nil {
		return nil, err
	}
	return st, nil
}

// Parse implements sql.Parser with the options of the session's sql_mode.
func (p *Parser) Parse(ctx *sql.Context, query string, multi bool) (ast.Statement, string, string, error) {
	return p.ParseWithOptions(ctx, query, ';', multi, sql.LoadSqlMode(ctx).ParserOptions())
}

// ParseWithOptions implements sql.Parser. Like GMS's MySQL parser, it
// trims spaces and trailing delimiters; with multi set it parses the first
// statement and returns the text after its ';' as the remainder, for
// lakehouse statements exactly as for MySQL ones. Without multi, a query
// holding more than one statement is a syntax error.
func (p *Parser) ParseWithOptions(ctx context.Context, query string, delimiter rune, multi bool, options ast.ParserOptions) (_ ast.Statement, _ string, _ string, rerr error) {
	defer func() { rerr = sqlerr.Wrap(rerr) }()
	query, _ = mysqlCompat(query, options)
	s := sql.RemoveSpaceAndDelimiter(query, delimiter)
	var (
		stmt Statement
		end  int
		ok   bool
		err  error
	)
	if multi {
		stmt, end, ok, err = recognize(s, options)
	} else {
		stmt, end, ok, err = recognizeOne(s, options)
	}
	if !ok {
		st, parsed, remainder, err := p.inner.ParseWithOptions(ctx, query, delimiter, multi, options)
		if err == nil {
			if err = refuseMySQLPartitioning(st, parsed, options); err != nil {
				st = nil
			}
		}
		return st, parsed, remainder, err
	}
	if err != nil {
		return nil, s, "", err
	}
	parsed, remainder := s, ""
	if multi && end < len(s) {
		// The statement without its ';' (and, as GMS does, without
		// trailing delimiters).
		parsed = sql.RemoveSpaceAndDelimiter(sql.RemoveSpaceAndDelimiter(s[:end], ';'), delimiter)
		remainder = s[end:]
	}
	st, err := inject(stmt)
	return st, parsed, remainder, err
}

// ParseOneWithOptions implements sql.Parser: it parses the first statement
// and returns the offset where the next one starts (len(query) if none).
func (p *Parser) ParseOneWithOptions(ctx context.Context, query string, options ast.ParserOptions) (_ ast.Statement, _ int, rerr error) {
	defer func() { rerr = sqlerr.Wrap(rerr) }()
	stmt, end, ok, err := recognize(query, options)
	if !ok {
		st, ri, err := p.inner.ParseOneWithOptions(ctx, query, options)
		if err == nil && ri >= 0 && ri <= len(query) {
			if err := refuseMySQLPartitioning(st, query[:ri], options); err != nil {
				return nil, 0, err
			}
		}
		return st, ri, err
	}
	if err != nil {
		return nil, 0, err
	}
	st, err := inject(stmt)
	if err != nil {
		return nil, 0, err
	}
	return st, end, nil
}

// Parse parses query as one lakehouse statement. It returns (nil, nil) when
// no rule recognises the query, which then belongs to the MySQL parser; a
// *SyntaxError when a rule recognises it but it is malformed.
func Parse(query string, options ast.ParserOptions) (Statement, error) {
	stmt, _, _, err := recognizeOne(query, options)
	return stmt, err
}

// inject wraps a statement as vitess's InjectedStatement, which GMS's
// planbuilder turns into the statement's node.
func inject(stmt Statement) (ast.Statement, error) {
	n, err := newNode(stmt)
	if err != nil {
		return nil, err
	}
	return ast.InjectedStatement{Statement: n, Auth: stmt.auth()}, nil
}

// rulesByKeyword indexes rules by their first keyword, most keywords first.
var rulesByKeyword = func() map[string][]*rule {
	m := map[string][]*rule{}
	for i := range rules {
		r := &rules[i]
		k := strings.ToUpper(r.keywords[0])
		m[k] = append(m[k], r)
	}
	for _, rs := range m {
		sort.SliceStable(rs, func(i, j int) bool { return len(rs[i].keywords) > len(rs[j].keywords) })
	}
	return m
}()

// recognize parses the first statement of src if a rule claims it. ok
// reports whether one did; then either err is set or stmt is, and end is
// the offset just past the statement's ';' (len(src) if it has none).
func recognize(src string, options ast.ParserOptions) (stmt Statement, end int, ok bool, err error) {
	s := newScanner(src, options)
	first := s.peek()
	if first.quoted {
		return nil, 0, false, nil
	}
	for _, r := range rulesByKeyword[strings.ToUpper(first.val)] {
		s.pos = 0
		if !leadsWith(s, r.keywords) {
			continue
		}
		s.pos = len(r.keywords)
		stmt, err := r.parse(s)
		if err == nil && stmt == nil {
			continue // declined
		}
		if err == nil {
			err = s.end()
		}
		if err != nil {
			return nil, 0, true, err
		}
		return stmt, s.rest(), true, nil
	}
	return nil, 0, false, nil
}

// recognizeOne is recognize for a query that must hold one statement:
// after its ';' only comments may follow, as in vitess's Parse.
func recognizeOne(src string, options ast.ParserOptions) (stmt Statement, end int, ok bool, err error) {
	stmt, end, ok, err = recognize(src, options)
	if !ok || err != nil || end >= len(src) {
		return stmt, end, ok, err
	}
	if t := newScanner(src[end:], options).peek(); t.typ != 0 {
		return nil, 0, true, &SyntaxError{
			Position: end + t.end + 1,
			Near:     t.text(),
			Message:  "expected one statement; several need a multi-statement batch",
		}
	}
	return stmt, end, true, nil
}

// leadsWith reports whether the statement starts with the words kw.
func leadsWith(s *scanner, kw []string) bool {
	for i, w := range kw {
		if !s.peekAt(i).is(w) {
			return false
		}
	}
	return true
}

// refuseMySQLPartitioning refuses MySQL table partitioning in a statement
// the MySQL parser returned: GMS accepts it and then ignores it. text is
// the statement's SQL.
func refuseMySQLPartitioning(stmt ast.Statement, text string, options ast.ParserOptions) error {
	if err := refuseAsOfRange(stmt); err != nil { // time travel ranges: see asof.go
		return err
	}
	switch st := stmt.(type) {
	case *ast.DDL:
		if st.TableSpec != nil && st.TableSpec.PartitionOpt != nil {
			return &partitioningError{clause: "PARTITION BY"}
		}
		// CREATE PROCEDURE / TRIGGER / EVENT bodies may hold a CREATE
		// TABLE the AST walk does not reach.
	case *ast.AlterTable:
		if len(st.PartitionSpecs) > 0 {
			return &partitioningError{clause: "ALTER TABLE ... " + strings.ToUpper(st.PartitionSpecs[0].Action) + " PARTITION"}
		}
		// vitess drops ALTER TABLE ... PARTITION BY from the AST.
	default:
		return nil
	}
	if hasTopLevelPartitionBy(text, options) {
		return &partitioningError{clause: "PARTITION BY"}
	}
	return nil
}

// hasTopLevelPartitionBy reports whether the SQL has PARTITION BY outside
// parentheses. Window definitions (OVER (PARTITION BY ...)) are always in
// parentheses; outside them it is MySQL table partitioning.
func hasTopLevelPartitionBy(text string, options ast.ParserOptions) bool {
	if !strings.Contains(strings.ToUpper(text), "PARTITION") {
		return false
	}
	tkn := ast.NewStringTokenizer(text)
	if options.AnsiQuotes {
		tkn = ast.NewStringTokenizerForAnsiQuotes(text)
	}
	depth, prev := 0, 0
	for {
		typ, _ := safeScan(tkn)
		switch typ {
		case 0, ast.LEX_ERROR:
			return false
		case ast.COMMENT:
			continue
		case '(':
			depth++
		case ')':
			depth--
		case ast.BY:
			if prev == ast.PARTITION && depth == 0 {
				return true
			}
		}
		prev = typ
	}
}
