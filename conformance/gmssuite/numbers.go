package gmssuite

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// sameNumbers reports whether a difference is only the type of numbers:
// the expected and actual rows are equal once every number is read as a
// value, and lakesql's side has more quoted numbers (DECIMALs, which GMS's
// rows hold as strings) than GMS's when decimal is true, fewer when false.
// It reads both of testify's forms: "expected …, got …" (%#v of the rows)
// and "rows differ: …" (spew dumps of the rows found on one side only).
func sameNumbers(diff string, decimal bool) bool {
	exp, act, ok := sides(diff)
	if !ok {
		return false
	}
	ne, na := len(quotedNumber.FindAllString(exp, -1)), len(quotedNumber.FindAllString(act, -1))
	if decimal && na <= ne || !decimal && ne <= na {
		return false
	}
	return slices.Equal(rows(exp), rows(act))
}

// sides splits a difference into GMS's expected rows and lakesql's.
func sides(diff string) (exp, act string, ok bool) {
	if rest, found := strings.CutPrefix(diff, "expected "); found {
		exp, act, ok = strings.Cut(rest, ", got ")
		return exp, act, ok
	}
	rest, found := strings.CutPrefix(diff, "rows differ: extra elements in list A: ")
	if !found {
		return "", "", false
	}
	exp, rest, ok = strings.Cut(rest, " extra elements in list B: ")
	if !ok {
		return "", "", false
	}
	act, _, _ = strings.Cut(rest, " listA: ")
	return exp, act, true
}

var (
	// spew's type annotations: "(float64) ", "(string) (len=3) ".
	spewType     = regexp.MustCompile(`\((?:u?int(?:8|16|32|64)?|float(?:32|64)|string|decimal\.Decimal)\) (?:\(len=\d+\) )?`)
	quotedNumber = regexp.MustCompile(`"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"`)
	number       = regexp.MustCompile(`"?-?\b[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\b"?`)
	rowStart     = regexp.MustCompile(`sql\.Row\{|\(sql\.Row\) \(len=\d+\)`)
)

// rows normalises one side: type annotations dropped, every number
// written as its float64 value, split into rows and sorted (an unordered
// comparison reports its rows in any order).
func rows(s string) []string {
	s = spewType.ReplaceAllString(s, "")
	s = number.ReplaceAllStringFunc(s, func(n string) string {
		f, err := strconv.ParseFloat(strings.Trim(n, `"`), 64)
		if err != nil {
			return n
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	})
	parts := rowStart.Split(s, -1)
	for i, p := range parts {
		parts[i] = strings.Trim(p, " ,{}()[]")
	}
	slices.Sort(parts)
	return parts
}
