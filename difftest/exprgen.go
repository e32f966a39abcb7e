package difftest

import (
	"fmt"
	"strings"
)

// ref is a column visible to an expression: "alias.name" and its type.
type ref struct {
	sql string
	t   ColType
}

// scope is the columns an expression may use.
type scope []ref

func (s scope) ofKind(k Kind) []ref {
	var out []ref
	for _, c := range s {
		if c.t.Kind == k {
			out = append(out, c)
		}
	}
	return out
}

// operands are the columns of kind k that may enter an expression,
// BIGINTs included (their arithmetic is exact or 1690 on both servers:
// mysqlfix/intarith.go). Not unsigned integers: MariaDB types IF, CASE,
// COALESCE, GREATEST and LEAST of a signed and an unsigned integer as
// DECIMAL where lakesql types BIGINT [UNSIGNED], and they disagree on
// u DIV -n (lakesql 1690, as MySQL 8's unsigned DIV); they are still
// selected, grouped, joined and aggregated as columns.
func (s scope) operands(k Kind) []ref {
	var out []ref
	for _, c := range s.ofKind(k) {
		if !c.t.Unsigned {
			out = append(out, c)
		}
	}
	return out
}

// expr writes a random expression of kind k over s, at most depth deep.
// Leaves are columns of s (when it has one of that kind) or literals.
func (g *Gen) expr(s scope, k Kind, depth int) string {
	if depth <= 0 || g.r.IntN(3) == 0 {
		return g.leaf(s, k)
	}
	d := depth - 1
	switch k {
	case KindInt:
		return g.intExpr(s, d)
	case KindDecimal:
		return g.decimalExpr(s, d)
	case KindFloat:
		return g.floatExpr(s, d)
	case KindString:
		return g.stringExpr(s, d)
	case KindDate:
		return g.dateExpr(s, d)
	case KindDatetime:
		return g.datetimeExpr(s, d)
	default:
		// Parenthesised: GMS's parser refuses `a >= b NOT IN (…)`.
		return "(" + g.cond(s, d) + ")"
	}
}

// leaf is a column of kind k from s, or a literal of that kind.
func (g *Gen) leaf(s scope, k Kind) string {
	if cols := s.operands(k); len(cols) > 0 && g.r.IntN(4) != 0 {
		return cols[g.r.IntN(len(cols))].sql
	}
	return g.lit(s, k)
}

// decimalLiterals are the DECIMAL literals the generator writes.
var decimalLiterals = []string{"0.5", "1.25", "2.5", "10.125", "0.001", "3.0", "-0.5"}

// lit is a literal of kind k. A DECIMAL literal fits every DECIMAL column
// of s (no more integer digits nor scale): GMS's binder converts a
// literal compared with a DECIMAL column to the column's type, so
// `c < 0.001` for a DECIMAL(15,1) c compares with 0.0, and `c >= 1.25`
// for a DECIMAL(6,6) c fails with 1264. (Comparisons it leaves alone are
// made exact by mysqlfix.)
func (g *Gen) lit(s scope, k Kind) string {
	if k == KindDecimal {
		var fit []string
		for _, l := range decimalLiterals {
			if fitsAll(l, s.ofKind(KindDecimal)) {
				fit = append(fit, l)
			}
		}
		if len(fit) == 0 {
			return "0"
		}
		return fit[g.r.IntN(len(fit))]
	}
	switch k {
	case KindInt:
		return pick(g.r, "0", "1", "2", "3", "-1", "7", "100")
	case KindFloat:
		return pick(g.r, "1e0", "2.5e0", "-0.5e0", "1e3")
	case KindString:
		return pick(g.r, "'a'", "'b'", "''", "'ab'", "'x1'", "'10'", "'A'", "'abc'")
	case KindDate:
		return pick(g.r, "CAST('2024-01-15' AS DATE)", "DATE '2024-02-29'", "CAST('1999-12-31' AS DATE)", "DATE '2024-01-15'")
	case KindDatetime:
		return pick(g.r, "CAST('2024-01-15 10:30:00' AS DATETIME)", "TIMESTAMP '2024-03-01 00:00:00'", "TIMESTAMP '2024-01-15 10:30:00.25'")
	default:
		return pick(g.r, "TRUE", "FALSE")
	}
}

// fitsAll reports whether the decimal literal l has no more integer digits
// and no more scale than each of cols.
func fitsAll(l string, cols []ref) bool {
	digits := strings.TrimLeft(strings.TrimPrefix(l, "-"), "0")
	intPart, frac, _ := strings.Cut(digits, ".")
	for _, c := range cols {
		if len(intPart) > c.t.Prec-c.t.Scale || len(frac) > c.t.Scale {
			return false
		}
	}
	return true
}

// fitsStrings reports whether a string of n characters fits every column.
func fitsStrings(n int, cols []ref) bool {
	for _, c := range cols {
		if n > c.t.Len {
			return false
		}
	}
	return true
}

// withoutDiv runs f with no integer DIV generated: MariaDB sizes
// `x DIV n` one character too narrow for an INT x, so converting it cuts
// -1073741824 to -107374182 (CAST AS CHAR) or -1000000000 (AVG), where
// MySQL 8 and lakesql keep the value. Plain selected DIVs print whole.
func (g *Gen) withoutDiv(f func() string) string {
	old := g.noDiv
	g.noDiv = true
	defer func() { g.noDiv = old }()
	return f()
}

// numKind draws one of the numeric kinds.
func (g *Gen) numKind() Kind {
	return []Kind{KindInt, KindInt, KindDecimal, KindFloat}[g.r.IntN(4)]
}

func (g *Gen) intExpr(s scope, d int) string {
	a := func() string { return g.expr(s, KindInt, d) }
	switch g.r.IntN(16) {
	case 0:
		return fmt.Sprintf("(%s + %s)", a(), a())
	case 1:
		return fmt.Sprintf("(%s - %s)", a(), a())
	case 2:
		// Times a literal, so that INT limits stay inside BIGINT.
		return fmt.Sprintf("(%s * %s)", a(), g.leaf(nil, KindInt))
	case 3:
		if g.noDiv {
			return fmt.Sprintf("(%s - 1)", a())
		}
		return fmt.Sprintf("(%s DIV %s)", a(), pick(g.r, "2", "3", "-4"))
	case 4:
		if g.noDiv {
			return fmt.Sprintf("(%s %% %s)", a(), pick(g.r, "5", "-2"))
		}
		return fmt.Sprintf("(%s %s %s)", a(), pick(g.r, "DIV", "%", "MOD"), pick(g.r, "5", "-2"))
	case 5:
		return fmt.Sprintf("ABS(%s)", a())
	case 6:
		return fmt.Sprintf("CHAR_LENGTH(%s)", g.expr(s, KindString, d))
	case 7:
		return fmt.Sprintf("%s(%s)", pick(g.r, "YEAR", "MONTH", "DAYOFMONTH", "DAYOFWEEK", "QUARTER"), g.expr(s, KindDate, d))
	case 8:
		return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.cond(s, d), a(), a())
	case 9:
		return fmt.Sprintf("COALESCE(%s, %s)", a(), a())
	case 10:
		return fmt.Sprintf("IF(%s, %s, %s)", g.cond(s, d), a(), a())
	case 11:
		return fmt.Sprintf("%s(%s, %s)", pick(g.r, "GREATEST", "LEAST"), a(), a())
	case 12:
		// BIGINT of a narrow DECIMAL, DECIMAL of a wide one (mysqlfix/
		// decimalround.go).
		return fmt.Sprintf("%s(%s)", pick(g.r, "FLOOR", "CEILING", "ROUND"), g.expr(s, KindDecimal, d))
	case 13:
		if g.r.IntN(3) == 0 {
			// Plus 0.0: GMS's binder drops a CAST AS SIGNED of an IF,
			// CASE, COALESCE or LEAST it types BIGINT before mysqlfix
			// gives one over DECIMALs its DECIMAL type, and the CAST is
			// lost.
			return fmt.Sprintf("CAST((%s + 0.0) AS SIGNED)", g.expr(s, KindDecimal, d))
		}
		return fmt.Sprintf("CAST(%s AS SIGNED)", g.expr(s, pick3(g, KindInt, KindBool), d))
	case 14:
		// -(x), not -x: GMS's parser refuses --1 (MySQL reads it as
		// -(-1)). Of a narrow column or a literal: MariaDB types the
		// negation of any BIGINT expression as DECIMAL, MySQL 8 (and
		// lakesql) as BIGINT.
		var narrow []ref
		for _, c := range s.operands(KindInt) {
			if c.t.Bits < 64 {
				narrow = append(narrow, c)
			}
		}
		if len(narrow) > 0 && g.r.IntN(4) != 0 {
			return fmt.Sprintf("-(%s)", narrow[g.r.IntN(len(narrow))].sql)
		}
		return fmt.Sprintf("-(%s)", g.lit(s, KindInt))
	default:
		return fmt.Sprintf("%s(%s)", pick(g.r, "HOUR", "MINUTE"), g.expr(s, KindDatetime, d))
	}
}

func pick3(g *Gen, ks ...Kind) Kind { return ks[g.r.IntN(len(ks))] }

func (g *Gen) decimalExpr(s scope, d int) string {
	a := func() string { return g.expr(s, pick3(g, KindDecimal, KindDecimal, KindInt), d) }
	switch g.r.IntN(12) {
	case 0, 1:
		return fmt.Sprintf("(%s + %s)", g.expr(s, KindDecimal, d), a())
	case 2:
		return fmt.Sprintf("(%s - %s)", g.expr(s, KindDecimal, d), a())
	case 3:
		// Past 81 digits MySQL's 1690 (mysqlfix/numoverflow.go).
		return fmt.Sprintf("(%s * %s)", g.expr(s, KindDecimal, d), a())
	case 4:
		// Rounded to the dividend's scale + 4 (mysqlfix/decimaldiv.go).
		return fmt.Sprintf("(%s / %s)", a(), g.expr(s, pick3(g, KindDecimal, KindInt), d))
	case 5:
		return fmt.Sprintf("%s(%s, %d)", pick(g.r, "ROUND", "TRUNCATE"), g.expr(s, KindDecimal, d), g.r.IntN(6)-2)
	case 6:
		return fmt.Sprintf("%s(%s, %s)", pick(g.r, "GREATEST", "LEAST"), g.expr(s, KindDecimal, d), a())
	case 7:
		// Out of range: the type's limit with warning 1264.
		p := 1 + g.r.IntN(20)
		return fmt.Sprintf("CAST(%s AS DECIMAL(%d,%d))", g.expr(s, pick3(g, KindInt, KindDecimal), d), p, g.r.IntN(min(p, 6)+1))
	case 8:
		return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.cond(s, d), g.expr(s, KindDecimal, d), a())
	case 9:
		return fmt.Sprintf("IF(%s, %s, %s)", g.cond(s, d), a(), g.expr(s, KindDecimal, d))
	case 10:
		return fmt.Sprintf("%s(%s, %s)", pick(g.r, "COALESCE", "IFNULL"), a(), g.expr(s, KindDecimal, d))
	default:
		return fmt.Sprintf("ABS(%s)", g.expr(s, KindDecimal, d))
	}
}

func (g *Gen) floatExpr(s scope, d int) string {
	a := func() string { return g.expr(s, pick3(g, KindFloat, KindFloat, KindInt, KindDecimal), d) }
	switch g.r.IntN(6) {
	case 0:
		return fmt.Sprintf("(%s + %s)", g.expr(s, KindFloat, d), a())
	case 1:
		// Times a literal: MySQL does not evaluate a comparison's right
		// operand when the left is NULL, where GMS does, so a product
		// past DOUBLE's range (1690 on both: mysqlfix/numoverflow.go)
		// fails the query on lakesql only (seed 1, query 587).
		return fmt.Sprintf("(%s * %s)", g.expr(s, KindFloat, d), g.leaf(nil, KindFloat))
	case 2:
		return fmt.Sprintf("(%s - %s)", g.expr(s, KindFloat, d), a())
	case 3:
		return fmt.Sprintf("ABS(%s)", g.expr(s, KindFloat, d))
	case 4:
		return fmt.Sprintf("(%s / %s)", g.expr(s, KindFloat, d), g.leaf(nil, KindFloat))
	default:
		return fmt.Sprintf("COALESCE(%s, %s)", g.expr(s, KindFloat, d), g.expr(s, KindFloat, d))
	}
}

func (g *Gen) stringExpr(s scope, d int) string {
	a := func() string { return g.expr(s, KindString, d) }
	switch g.r.IntN(12) {
	case 0:
		return fmt.Sprintf("CONCAT(%s, %s)", a(), a())
	case 1:
		return fmt.Sprintf("%s(%s)", pick(g.r, "UPPER", "LOWER", "TRIM", "LTRIM", "RTRIM", "REVERSE"), a())
	case 2:
		return fmt.Sprintf("SUBSTRING(%s, %d, %d)", a(), 1+g.r.IntN(3), g.r.IntN(4))
	case 3:
		return fmt.Sprintf("%s(%s, %d)", pick(g.r, "LEFT", "RIGHT"), a(), g.r.IntN(4))
	case 4:
		return fmt.Sprintf("REPLACE(%s, %s, %s)", a(), pick(g.r, "'a'", "' '", "'1'"), pick(g.r, "'Q'", "''", "'zz'"))
	case 5:
		return fmt.Sprintf("CAST(%s AS CHAR)", g.withoutDiv(func() string { return g.expr(s, pick3(g, KindInt, KindString, KindDate, KindDecimal), d) }))
	case 6:
		return fmt.Sprintf("COALESCE(%s, %s)", a(), a())
	case 7:
		return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.cond(s, d), a(), a())
	case 8:
		if g.r.IntN(2) == 0 {
			return fmt.Sprintf("REPEAT(%s, %d)", a(), g.r.IntN(3))
		}
		return fmt.Sprintf("%s(%s, %d, %s)", pick(g.r, "LPAD", "RPAD"), a(), g.r.IntN(6)-1, pick(g.r, "'*'", "'é-'", "''", "'ab'"))
	case 9:
		return fmt.Sprintf("CONCAT_WS('-', %s, %s)", a(), a())
	case 10:
		return fmt.Sprintf("DATE_FORMAT(%s, '%%Y/%%m/%%d')", g.expr(s, KindDate, d))
	default:
		return fmt.Sprintf("IF(%s, %s, %s)", g.cond(s, d), a(), a())
	}
}

func (g *Gen) dateExpr(s scope, d int) string {
	switch g.r.IntN(3) {
	case 0:
		return fmt.Sprintf("DATE(%s)", g.expr(s, KindDatetime, d))
	case 1:
		return fmt.Sprintf("%s(%s, INTERVAL %d %s)", pick(g.r, "DATE_ADD", "DATE_SUB"), g.expr(s, KindDate, d), g.r.IntN(61)-30, pick(g.r, "DAY", "MONTH", "YEAR", "QUARTER"))
	default:
		if g.r.IntN(2) == 0 {
			return fmt.Sprintf("%s(%s, %s)", pick(g.r, "GREATEST", "LEAST"), g.expr(s, KindDate, d), g.leaf(s, KindDate))
		}
		return fmt.Sprintf("%s(%s, %s)", pick(g.r, "COALESCE", "IFNULL"), g.expr(s, KindDate, d), g.leaf(s, KindDate))
	}
}

func (g *Gen) datetimeExpr(s scope, d int) string {
	switch g.r.IntN(3) {
	case 0:
		return fmt.Sprintf("DATE_ADD(%s, INTERVAL %d %s)", g.expr(s, KindDatetime, d), g.r.IntN(61)-30, pick(g.r, "HOUR", "MINUTE", "DAY", "SECOND", "MONTH", "YEAR"))
	case 1:
		return fmt.Sprintf("COALESCE(%s, %s)", g.expr(s, KindDatetime, d), g.leaf(nil, KindDatetime))
	default:
		return fmt.Sprintf("DATE_SUB(%s, INTERVAL %d %s)", g.expr(s, KindDatetime, d), g.r.IntN(30), pick(g.r, "DAY", "MONTH"))
	}
}

// cond writes a random boolean condition over s.
func (g *Gen) cond(s scope, depth int) string {
	d := depth - 1
	if depth <= 0 {
		return g.compare(s, 0)
	}
	switch g.r.IntN(10) {
	case 0:
		return fmt.Sprintf("(%s AND %s)", g.cond(s, d), g.cond(s, d))
	case 1:
		return fmt.Sprintf("(%s OR %s)", g.cond(s, d), g.cond(s, d))
	case 2:
		return fmt.Sprintf("NOT %s", g.cond(s, d))
	case 3:
		return fmt.Sprintf("%s IS %sNULL", g.expr(s, g.anyKind(), d), pick(g.r, "", "NOT "))
	case 4:
		k := g.numKind()
		return fmt.Sprintf("%s %sBETWEEN %s AND %s", g.expr(s, k, d), pick(g.r, "", "NOT "), g.leaf(nil, k), g.leaf(nil, k))
	case 5:
		k := g.anyKind()
		return fmt.Sprintf("%s %sIN (%s, %s, %s)", g.expr(s, k, d), pick(g.r, "", "NOT "), g.lit(s, k), g.lit(s, k), g.lit(s, k))
	case 6:
		return fmt.Sprintf("%s LIKE %s", g.expr(s, KindString, d), pick(g.r, "'a%'", "'%b'", "'_'", "'%'", "'A%'", "'a_'", `'%\_%'`, `'a\%'`, `'\_'`))
	case 7:
		if cols := s.ofKind(KindBool); len(cols) > 0 {
			return cols[g.r.IntN(len(cols))].sql
		}
		return g.compare(s, d)
	default:
		return g.compare(s, d)
	}
}

// compare compares two expressions of one kind.
func (g *Gen) compare(s scope, d int) string {
	k := g.anyKind()
	if k == KindBool {
		k = KindInt
	}
	op := pick(g.r, "=", "<>", "<", "<=", ">", ">=", "<=>")
	return fmt.Sprintf("%s %s %s", g.expr(s, k, d), op, g.expr(s, k, d))
}

// anyKind draws a kind, weighted towards the columns in scope.
func (g *Gen) anyKind() Kind {
	return []Kind{KindInt, KindInt, KindDecimal, KindFloat, KindString, KindString, KindDate, KindDatetime, KindBool}[g.r.IntN(9)]
}

// exprOfScope draws an expression whose kind is that of a random column
// in s, so that selected expressions mostly touch the data.
func (g *Gen) exprOfScope(s scope, depth int) (string, Kind) {
	c := s[g.r.IntN(len(s))]
	return g.expr(s, c.t.Kind, depth), c.t.Kind
}

// joinList joins strings with ", ".
func joinList(xs []string) string { return strings.Join(xs, ", ") }
