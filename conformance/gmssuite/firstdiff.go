package gmssuite

import (
	"strings"
)

// FirstDifference is the informative part of a failed case's output, on
// one line: testify's expected/actual pair ("expected …, got …"), the rows
// an unordered comparison found on one side only ("rows differ: …"), the
// unexpected error, or the first failure message. Skip-list diffs match it.
func FirstDifference(output string) string {
	lines := strings.Split(output, "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "panic:") {
			return l
		}
		msg, ok := strings.CutPrefix(l, "Error:")
		if !ok {
			continue
		}
		msg = strings.TrimSpace(msg)
		rest := continuation(lines[i+1:])
		switch {
		case strings.HasPrefix(msg, "Not equal"):
			return expectedActual(rest)
		case strings.HasPrefix(msg, "elements differ"):
			return "rows differ: " + strings.Join(rest, " ")
		case msg == "Received unexpected error:" && len(rest) > 0:
			return rest[0]
		case msg == "Should be true" || msg == "Should be false":
			if m := messages(lines[i+1:]); m != "" {
				return m
			}
		}
		return msg
	}
	return ""
}

// continuation is the rest of a testify message: the lines after "Error:"
// up to the next field ("Test:", "Messages:"), trimmed, blank ones dropped.
func continuation(lines []string) []string {
	var out []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if field(l) {
			break
		}
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func field(l string) bool {
	for _, f := range []string{"Error Trace:", "Error:", "Test:", "Messages:"} {
		if strings.HasPrefix(l, f) {
			return true
		}
	}
	return false
}

// messages is testify's "Messages:" field, which carries the detail of a
// bare assertion ("Expected error of type … but got …").
func messages(lines []string) string {
	for i, l := range lines {
		if m, ok := strings.CutPrefix(strings.TrimSpace(l), "Messages:"); ok {
			return strings.Join(append([]string{strings.TrimSpace(m)}, continuation(lines[i+1:])...), " ")
		}
	}
	return ""
}

// expectedActual condenses testify's "expected: … actual: …" lines.
func expectedActual(lines []string) string {
	var exp, act string
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, "expected:"); ok && exp == "" {
			exp = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(l, "actual  :"); ok && act == "" {
			act = strings.TrimSpace(v)
		}
	}
	return "expected " + exp + ", got " + act
}

// Short is a difference cut to one readable line for reports.
func Short(s string) string {
	if r := []rune(s); len(r) > 240 {
		return string(r[:240]) + "…"
	}
	return s
}
