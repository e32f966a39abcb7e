package gmssuite

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// SkipList is testdata/skiplist.txt: why lakesql answers some of GMS's
// cases differently from GMS's in-memory engine, and which cases with
// which differences each reason covers.
//
// The file is a list of reasons. A reason is a line "[id] why", then its
// match lines, each indented: a case pattern, a tab, a difference
// pattern. Both are Go regular expressions, unanchored; the case pattern
// is matched against the full test name as testing spells it
// (TestQueries/SELECT_SUM(i)_FROM_mytable), the difference pattern
// against the case's FirstDifference. "*" matches anything. Two
// difference patterns compare the rows instead of the text:
//
//	=decimal  the rows hold the same numbers, lakesql's as DECIMAL where
//	          GMS expects an integer or a DOUBLE
//	=integer  the rows hold the same numbers, lakesql's as integers where
//	          GMS expects a DECIMAL
//
// Lines starting with # and blank lines are comments.
type SkipList struct {
	Reasons []*Reason
}

// Reason is one entry of the skip list.
type Reason struct {
	ID, Why string
	Matches []*Match
}

// Match is one match line: the cases and the difference they show.
type Match struct {
	Line       int // in the file, for reports
	Case, Diff string
	caseRE     *regexp.Regexp
	diff       func(string) bool
	Used       int // failures it explained in this run
}

var reasonLine = regexp.MustCompile(`^\[([a-z0-9-]+)\]\s+(\S.*)$`)

// ParseSkipList reads a skip list.
func ParseSkipList(r io.Reader) (*SkipList, error) {
	l := &SkipList{}
	in := bufio.NewScanner(r)
	for n := 1; in.Scan(); n++ {
		line := in.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if m := reasonLine.FindStringSubmatch(line); m != nil {
			l.Reasons = append(l.Reasons, &Reason{ID: m[1], Why: m[2]})
			continue
		}
		if line[0] != ' ' && line[0] != '\t' || len(l.Reasons) == 0 {
			return nil, fmt.Errorf("skip list line %d: want \"[id] why\" or an indented match line: %q", n, line)
		}
		m, err := parseMatch(n, strings.TrimSpace(line))
		if err != nil {
			return nil, err
		}
		r := l.Reasons[len(l.Reasons)-1]
		r.Matches = append(r.Matches, m)
	}
	if err := in.Err(); err != nil {
		return nil, err
	}
	for _, r := range l.Reasons {
		if len(r.Matches) == 0 {
			return nil, fmt.Errorf("skip list reason [%s] has no match lines", r.ID)
		}
	}
	return l, nil
}

func parseMatch(n int, line string) (*Match, error) {
	c, d, ok := strings.Cut(line, "\t")
	if !ok {
		return nil, fmt.Errorf("skip list line %d: want a case pattern, a tab and a difference pattern", n)
	}
	m := &Match{Line: n, Case: strings.TrimSpace(c), Diff: strings.TrimSpace(d)}
	re, err := pattern(m.Case)
	if err != nil {
		return nil, fmt.Errorf("skip list line %d: case: %w", n, err)
	}
	m.caseRE = re
	switch m.Diff {
	case "=decimal":
		m.diff = func(s string) bool { return sameNumbers(s, true) }
	case "=integer":
		m.diff = func(s string) bool { return sameNumbers(s, false) }
	default:
		re, err := pattern(m.Diff)
		if err != nil {
			return nil, fmt.Errorf("skip list line %d: difference: %w", n, err)
		}
		m.diff = re.MatchString
	}
	return m, nil
}

func pattern(p string) (*regexp.Regexp, error) {
	if p == "*" {
		p = ""
	}
	return regexp.Compile(p)
}

// Explain returns the reason covering a failed case and counts the match
// line that covered it, or nil when no line does.
func (l *SkipList) Explain(c Case) *Reason {
	diff := FirstDifference(c.Output)
	for _, r := range l.Reasons {
		for _, m := range r.Matches {
			if m.caseRE.MatchString(c.Name) && m.diff(diff) {
				m.Used++
				return r
			}
		}
	}
	return nil
}

// Unused returns the match lines that explained no failure: cases that
// now pass or differ in another way, so the line must go or change.
func (l *SkipList) Unused() []*Match {
	var out []*Match
	for _, r := range l.Reasons {
		for _, m := range r.Matches {
			if m.Used == 0 {
				out = append(out, m)
			}
		}
	}
	return out
}
