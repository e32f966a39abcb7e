package gmssuite

import (
	"bufio"
	"io"
	"strings"
)

// Case is one leaf test of a suite run: a test with no subtests.
type Case struct {
	Name    string // as testing spells it, e.g. TestQueries/SELECT_1
	Outcome string // "pass", "fail" or "skip"
	Output  string // what the test printed
}

// marker frames testing's own lines in -test.v=test2json output, which
// tells them apart from a test's output that happens to look alike.
const marker = "\x16"

// ParseRun reads the output of a test binary run with -test.v=test2json
// and returns its leaf tests in the order they started. Output belongs to
// the test named last by a framing line, as cmd/test2json attributes it.
func ParseRun(r io.Reader) ([]Case, error) {
	var (
		order   []string
		byName  = map[string]*Case{}
		parent  = map[string]bool{}
		current string
	)
	in := bufio.NewScanner(r)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	for in.Scan() {
		line := in.Text()
		frame, ok := strings.CutPrefix(line, marker)
		if !ok {
			if c := byName[current]; c != nil {
				c.Output += line + "\n"
			}
			continue
		}
		verb, name := framing(frame)
		switch verb {
		case "RUN":
			if byName[name] == nil {
				byName[name] = &Case{Name: name}
				order = append(order, name)
			}
			for p := name; strings.Contains(p, "/"); {
				p = p[:strings.LastIndexByte(p, '/')]
				parent[p] = true
			}
			current = name
		case "NAME", "CONT", "PAUSE":
			current = name
		case "PASS", "FAIL", "SKIP":
			if c := byName[name]; c != nil {
				c.Outcome = strings.ToLower(verb)
			}
			current = name
		}
	}
	var out []Case
	for _, n := range order {
		if !parent[n] {
			out = append(out, *byName[n])
		}
	}
	return out, in.Err()
}

// framing splits a framing line ("=== RUN   T/x", "--- FAIL: T/x (0.01s)")
// into its verb and test name.
func framing(line string) (verb, name string) {
	switch {
	case strings.HasPrefix(line, "=== "):
		verb, name, _ = strings.Cut(strings.TrimPrefix(line, "=== "), " ")
		return verb, strings.TrimSpace(name)
	case strings.HasPrefix(line, "--- "):
		verb, name, _ = strings.Cut(strings.TrimPrefix(line, "--- "), ": ")
		if i := strings.LastIndex(name, " ("); i >= 0 {
			name = name[:i]
		}
		return verb, name
	}
	return "", ""
}

// Finished reports whether a run ended as testing ends one (a framed PASS
// or FAIL line last) rather than by a panic or a kill, which would leave
// the rest of a suite unrun.
func Finished(raw []byte) bool {
	s := strings.TrimRight(string(raw), "\n")
	if strings.HasPrefix(s, "panic: ") || strings.Contains(s, "\npanic: ") {
		return false
	}
	last := s[strings.LastIndexByte(s, '\n')+1:]
	return last == marker+"PASS" || last == marker+"FAIL"
}
