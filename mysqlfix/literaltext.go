package mysqlfix

import (
	"fmt"
	"strings"
	"unicode"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Two literals that GMS's lexer (vitess) reads differently from MySQL,
// fixed in the statement text before the lexer sees it:
//
//   - MySQL keeps the backslash of \% and \_ in a string literal ('\_' is
//     the two characters \ and _), so that LIKE '%\_%' sees an escaped
//     underscore and matches only a literal one. vitess decodes every
//     unknown escape to the bare character, so '\_' was "_" and LIKE
//     '%\_%' matched every string. The backslash is doubled: the lexer
//     turns \\_ into MySQL's \_.
//   - DATE '…' and TIMESTAMP '…' are typed DATE and DATETIME(fsp) in
//     MySQL; vitess keeps only the string, so they were TEXT. They are
//     written CAST('…' AS DATE) and CAST('…' AS DATETIME(fsp)).
//
// The statement's extent and its select expressions' names still come
// from the text as written (reparseFixedLiterals).

// fixLiterals returns q with \% and \_ in its string literals written
// \\% and \\_ and its DATE and TIMESTAMP literals as CASTs, and whether
// it changed anything. ansiQuotes: " quotes identifiers (sql_mode
// ANSI_QUOTES), not strings.
func fixLiterals(q string, ansiQuotes bool) (string, bool) {
	if !strings.Contains(q, `\_`) && !strings.Contains(q, `\%`) && !hasTypedLiteralWord(q) {
		return q, false
	}
	// NAME_CONST takes literals only: its DATE '…' stays as GMS reads it.
	typed := !strings.Contains(strings.ToUpper(q), "NAME_CONST")
	var b strings.Builder
	changed := false
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\'' || (c == '"' && !ansiQuotes):
			end := stringEnd(q, i)
			lit := q[i:end]
			if fixed, ok := doubleLikeEscapes(lit); ok {
				lit, changed = fixed, true
			}
			b.WriteString(lit)
			i = end
			continue
		case isWordStart(q, i):
			if cast, end, ok := typedLiteral(q, i, ansiQuotes); ok && typed {
				b.WriteString(cast)
				i, changed = end, true
				continue
			}
			end := i
			for end < len(q) && isWordByte(q[end]) {
				end++
			}
			b.WriteString(q[i:end])
			i = end
			continue
		case c == '`' || c == '"':
			end := quotedEnd(q, i)
			b.WriteString(q[i:end])
			i = end
			continue
		case c == '#' || strings.HasPrefix(q[i:], "-- "):
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				end = len(q) - i
			}
			b.WriteString(q[i : i+end])
			i += end
			continue
		case strings.HasPrefix(q[i:], "/*") && !strings.HasPrefix(q[i:], "/*!"):
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				end = len(q) - i - 2
			} else {
				end += 2
			}
			b.WriteString(q[i : i+2+end])
			i += 2 + end
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), changed
}

// stringEnd is the index just past the string literal opened at q[i]
// (backslash escapes and doubled quotes inside; the end of q when it is
// not closed).
func stringEnd(q string, i int) int {
	delim := q[i]
	for j := i + 1; j < len(q); j++ {
		switch q[j] {
		case '\\':
			j++
		case delim:
			if j+1 < len(q) && q[j+1] == delim {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(q)
}

// quotedEnd is the index just past the quoted identifier opened at q[i]
// (doubled quotes inside).
func quotedEnd(q string, i int) int {
	delim := q[i]
	for j := i + 1; j < len(q); j++ {
		if q[j] == delim {
			if j+1 < len(q) && q[j+1] == delim {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(q)
}

// doubleLikeEscapes doubles the backslash of each \% and \_ escape of the
// string literal lit (quotes included).
func doubleLikeEscapes(lit string) (string, bool) {
	var b strings.Builder
	changed := false
	for j := 0; j < len(lit); j++ {
		if lit[j] == '\\' && j+1 < len(lit) {
			if n := lit[j+1]; n == '_' || n == '%' {
				b.WriteByte('\\')
				changed = true
			}
			b.WriteByte(lit[j])
			b.WriteByte(lit[j+1])
			j++
			continue
		}
		b.WriteByte(lit[j])
	}
	return b.String(), changed
}

// reparseFixedLiterals gives fixed, the tree of orig's statement parsed
// from fixLiterals' text, orig's positions into the text as written:
// select expressions keep their names (the text GMS names an unaliased
// column by) and a CREATE VIEW its body's offsets.
func reparseFixedLiterals(orig ast.Statement, fixed ast.Statement) ast.Statement {
	from, to := aliasedExprs(orig), aliasedExprs(fixed)
	if len(from) == len(to) {
		for i, a := range to {
			a.StartParsePos, a.EndParsePos, a.InputExpression = from[i].StartParsePos, from[i].EndParsePos, from[i].InputExpression
		}
	}
	od, ok1 := orig.(*ast.DDL)
	fd, ok2 := fixed.(*ast.DDL)
	if ok1 && ok2 {
		fd.SubStatementPositionStart, fd.SubStatementPositionEnd = od.SubStatementPositionStart, od.SubStatementPositionEnd
	}
	return fixed
}

// aliasedExprs lists the select expressions of st in walk order.
func aliasedExprs(st ast.Statement) []*ast.AliasedExpr {
	var out []*ast.AliasedExpr
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if a, ok := n.(*ast.AliasedExpr); ok {
			out = append(out, a)
		}
		return true, nil
	}, st)
	return out
}

// hasTypedLiteralWord reports whether q may hold a DATE or TIMESTAMP
// literal (a cheap test before the scan).
func hasTypedLiteralWord(q string) bool {
	u := strings.ToUpper(q)
	return strings.Contains(u, "DATE") || strings.Contains(u, "TIMESTAMP")
}

// isWordStart reports whether q[i] starts a word: a letter not preceded
// by a word character, a '.' (t.date is a column) or '@' (a variable).
func isWordStart(q string, i int) bool {
	if !isLetter(q[i]) {
		return false
	}
	return i == 0 || !isWordByte(q[i-1]) && q[i-1] != '.' && q[i-1] != '@'
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isWordByte reports whether c may be part of an unquoted identifier.
func isWordByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

// typedLiteral reads a DATE '…' or TIMESTAMP '…' literal at q[i]: its
// CAST and the index just past it; false when the word at i is something
// else.
func typedLiteral(q string, i int, ansiQuotes bool) (string, int, bool) {
	j := i
	for j < len(q) && isWordByte(q[j]) {
		j++
	}
	word := strings.ToUpper(q[i:j])
	if word != "DATE" && word != "TIMESTAMP" || afterDefault(q[:i]) {
		return "", 0, false
	}
	k := j
	for k < len(q) && unicode.IsSpace(rune(q[k])) {
		k++
	}
	if k >= len(q) || !(q[k] == '\'' || q[k] == '"' && !ansiQuotes) {
		return "", 0, false
	}
	end := stringEnd(q, k)
	lit, _ := doubleLikeEscapes(q[k:end])
	if word == "DATE" {
		return fmt.Sprintf("CAST(%s AS DATE)", lit), end, true
	}
	return fmt.Sprintf("CAST(%s AS DATETIME(%d))", lit, fractionDigits(q[k+1:end-1])), end, true
}

// fractionDigits is the number of digits after the seconds' '.' of a
// TIMESTAMP literal's text (its fsp, at most 6).
func fractionDigits(s string) int {
	dot := strings.LastIndexByte(s, '.')
	if dot < 0 || dot < strings.LastIndexByte(s, ':') {
		return 0
	}
	n := 0
	for _, c := range s[dot+1:] {
		if c < '0' || c > '9' {
			break
		}
		n++
	}
	return min(n, 6)
}

// afterDefault reports whether before ends with the word DEFAULT: a
// column's DEFAULT DATE '…' stays a literal default, not an expression.
func afterDefault(before string) bool {
	t := strings.TrimRightFunc(before, unicode.IsSpace)
	return len(t) >= 7 && strings.EqualFold(t[len(t)-7:], "DEFAULT") && (len(t) == 7 || !isWordByte(t[len(t)-8]))
}
