// Package ddl recognises and runs the SQL statements MySQL does not have
// (CREATE / USE / SHOW / DROP / ALTER WORKSPACE, SHOW WORKSPACE PROPERTIES,
// and later materialized views, PARTITIONED BY, ...).
//
// # How it sits on GMS
//
// Parser wraps GMS's MySQL parser. For each query it lexes the first
// statement with vitess's own tokenizer (so comments, backticks, ANSI_QUOTES
// and case work as in the MySQL grammar) and looks its leading words up in
// rules. A statement a rule claims becomes an ast.InjectedStatement holding
// a *Node; GMS's planbuilder resolves it, and the executor calls
// Node.RowIter, which runs the statement against the session
// (ctx.Session.(Session)). Everything else goes to the MySQL parser
// unchanged, except MySQL table partitioning (PARTITION BY, ADD/DROP ...
// PARTITION), which GMS would drop silently and Parser refuses.
//
// The engine installs one Parser as both Engine.Parser and sql.GlobalParser:
//
//	p := ddl.NewParser(sql.NewMysqlParser())
//	eng.Parser = p
//	sql.GlobalParser = p
//
// Lakehouse statements work in multi-statement batches and through the
// embedded API. They are text protocol only: vitess rejects custom syntax
// in server-side prepared statements (COM_STMT_PREPARE).
//
// # Adding a statement
//
//  1. In grammar.go, add the statement's type (a struct of what it names)
//     with String, which renders canonical SQL that parses back to an
//     equal value, and auth, the GMS privilege it needs.
//  2. Add a rule to rules: its leading keywords, its synopsis, and a parse
//     function that reads the rest with the scanner's accept, expect and
//     name helpers and reports problems with errorf (a *SyntaxError with
//     the position). The router checks the end of the statement. A parse
//     function returns (nil, nil) to decline, for statements that only
//     sometimes are lakehouse ones (USE WORKSPACE alone is MySQL's USE of a
//     database named workspace); the MySQL parser then gets them.
//  3. In exec.go, give the type schema, readOnly and exec methods: exec
//     runs it through Session and returns rows (DDL returns one
//     types.OkResult row under types.OkResultSchema).
//  4. Add cases to the tests: parse_test.go (forms, errors and positions),
//     exec_test.go (rows against a real catalog) and a seed in
//     testdata/fuzz/FuzzParse. TestRules_Complete checks that every rule's
//     synopsis parses and has a node.
//
// No special cases outside rules: the router, multi-statement splitting and
// the fuzz target cover every rule.
//
// # Errors
//
// Malformed lakehouse statements are *SyntaxError ("syntax error at
// position N near 'x': expected ON or OFF"; N follows vitess's convention).
// Errors of the catalog come back unchanged from the statements; at the GMS
// boundary (Parser methods and Node.RowIter) sqlerr.Wrap gives lakesql's
// errors their MySQL code, keeping the message.
package ddl
