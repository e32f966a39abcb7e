package catalogstore

import (
	"context"
	"fmt"
	"strings"
)

// CheckColumnReaders refuses a schema change that would break a
// materialized view reading the dataset: dropping, renaming or retyping a
// column the view's SQL names (or any column, when the SQL selects *).
// The error names the view. Adding a column never breaks a reader that
// names its columns, so it is not checked.
func (c *Catalog) CheckColumnReaders(ctx context.Context, ds *Dataset, changes []SchemaChange) error {
	var touched []SchemaChange
	for _, ch := range changes {
		if ch.Kind != AddColumn {
			touched = append(touched, ch)
		}
	}
	if len(touched) == 0 {
		return nil
	}
	readers, err := c.readersOf(ctx, ds.Ident())
	if err != nil {
		return err
	}
	for _, r := range readers {
		mv, err := c.Dataset(ctx, r)
		if err != nil {
			continue // a trigger left by a dropped view reads nothing
		}
		names, star := sqlIdentifiers(mv.SQL)
		for _, ch := range touched {
			if star || names[strings.ToLower(ch.Column)] {
				return fmt.Errorf("%w: materialized view %s reads column %q of %s; %s it would break the view's refresh (drop the view first)",
					ErrSchema, sourceName(ds.Ident(), r), ch.Column, ds.Ident().Short(), changeVerb(ch.Kind))
			}
		}
	}
	return nil
}

func changeVerb(k ChangeKind) string {
	switch k {
	case DropColumn:
		return "dropping"
	case RenameColumn:
		return "renaming"
	default:
		return "changing the type of"
	}
}

// sqlIdentifiers returns the lower-cased identifiers (bare words and
// backquoted names) of a SQL text, skipping string literals and comments,
// and whether it has a bare * (a select of every column). It is a
// conservative reading of what a view's SQL names: a keyword or an alias
// spelled like a column counts as naming it, so a change is refused rather
// than allowed to break a refresh.
func sqlIdentifiers(sql string) (map[string]bool, bool) {
	names := map[string]bool{}
	star := false
	for i := 0; i < len(sql); {
		ch := sql[i]
		switch {
		case ch == '\'' || ch == '"':
			i = skipQuoted(sql, i, ch)
		case ch == '`':
			end := skipQuoted(sql, i, '`')
			names[strings.ToLower(strings.ReplaceAll(sql[i+1:max(i+1, end-1)], "``", "`"))] = true
			i = end
		case ch == '-' && strings.HasPrefix(sql[i:], "-- "), ch == '#':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case ch == '/' && strings.HasPrefix(sql[i:], "/*"):
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return names, star
			}
			i += end + 4
		case ch == '*':
			// A * right after SELECT, a comma or a qualifier's dot is a
			// column wildcard; after an operand it is a multiplication.
			prev := strings.TrimRight(sql[:i], " \t\r\n")
			if prev == "" || strings.HasSuffix(prev, ",") || strings.HasSuffix(prev, ".") ||
				strings.HasSuffix(strings.ToUpper(prev), "SELECT") || strings.HasSuffix(strings.ToUpper(prev), "DISTINCT") {
				star = true
			}
			i++
		case isIdentByte(ch):
			j := i
			for j < len(sql) && isIdentByte(sql[j]) {
				j++
			}
			names[strings.ToLower(sql[i:j])] = true
			i = j
		default:
			i++
		}
	}
	return names, star
}

// skipQuoted returns the index just past the quoted token starting at i
// (a doubled quote or a backslash escape stays inside it).
func skipQuoted(s string, i int, q byte) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if q != '`' {
				j++
			}
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

func isIdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}
