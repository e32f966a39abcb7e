package ddl

import (
	"fmt"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// token is one lexical token of a statement, as vitess's tokenizer sees it.
// Comments never become tokens.
type token struct {
	typ int    // vitess token type: ast.ID, a keyword id, ast.STRING, a punctuation byte, ';', 0 (end)
	val string // the token's text; a quoted identifier's text without quotes
	// end is the byte offset just past the token in the statement. Error
	// positions are end+1, the convention of vitess's own syntax errors.
	end int
	// quoted: a backtick (or, under ANSI_QUOTES, double-quote) identifier.
	// A quoted identifier is never a keyword.
	quoted bool
}

// isEnd reports whether t ends the statement (end of input or ';').
func (t token) isEnd() bool { return t.typ == 0 || t.typ == ';' }

// is reports whether t is the unquoted word w, case-insensitively. Keywords
// and plain identifiers are both words.
func (t token) is(w string) bool {
	return !t.quoted && t.typ != ast.STRING && strings.EqualFold(t.val, w)
}

// isName reports whether t can name something: a quoted identifier, or an
// unquoted word (keyword or identifier) made of letters, digits and _.
func (t token) isName() bool {
	if t.quoted {
		return true
	}
	if t.typ == ast.STRING || t.typ == ast.LEX_ERROR || t.val == "" {
		return false
	}
	for i := 0; i < len(t.val); i++ {
		c := t.val[i]
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// text is how an error message shows the token.
func (t token) text() string {
	switch {
	case t.typ == 0:
		return ""
	case t.val != "":
		return t.val
	case t.typ > 0 && t.typ < 256:
		return string(rune(t.typ))
	default:
		return ast.KeywordString(t.typ)
	}
}

// scanner lexes one statement on demand with vitess's tokenizer, so that
// comments, quoting, ANSI_QUOTES and case behave exactly as in the MySQL
// grammar. It stops at the first top-level ';' (quoted and commented ones
// are inside their tokens) or at a lexical error.
type scanner struct {
	src    string
	tkn    *ast.Tokenizer
	quotes string // identifier quote characters
	toks   []token
	pos    int  // index of the next token to consume
	done   bool // toks ends with the terminating token (end, ';' or LEX_ERROR)
}

func newScanner(src string, opts ast.ParserOptions) *scanner {
	s := &scanner{src: src, quotes: "`"}
	if opts.AnsiQuotes {
		s.tkn = ast.NewStringTokenizerForAnsiQuotes(src)
		s.quotes = "`\""
	} else {
		s.tkn = ast.NewStringTokenizer(src)
	}
	return s
}

// fill lexes until toks holds index i or the statement has ended.
func (s *scanner) fill(i int) {
	for !s.done && len(s.toks) <= i {
		typ, val := safeScan(s.tkn)
		if typ == ast.COMMENT {
			continue
		}
		t := token{typ: typ, val: string(val), end: s.tkn.Position - 1}
		if t.end > len(s.src) {
			t.end = len(s.src)
		}
		if t.end < 0 {
			t.end = 0
		}
		if typ == ast.ID && t.end > 0 && strings.IndexByte(s.quotes, s.src[t.end-1]) >= 0 {
			// An unquoted identifier never ends in a quote character.
			t.quoted = true
		}
		s.toks = append(s.toks, t)
		if typ == 0 || typ == ';' || typ == ast.LEX_ERROR {
			s.done = true
		}
	}
}

// peekAt returns the token i places ahead without consuming anything. Past
// the end of the statement it returns the terminating token.
func (s *scanner) peekAt(i int) token {
	s.fill(s.pos + i)
	if j := s.pos + i; j < len(s.toks) {
		return s.toks[j]
	}
	return s.toks[len(s.toks)-1]
}

func (s *scanner) peek() token { return s.peekAt(0) }

// next consumes and returns the next token. The terminating token is never
// consumed: next keeps returning it.
func (s *scanner) next() token {
	t := s.peek()
	if s.pos < len(s.toks)-1 || !s.done {
		s.pos++
	}
	return t
}

// accept consumes the next token if it is the word w.
func (s *scanner) accept(w string) bool {
	if s.peek().is(w) {
		s.next()
		return true
	}
	return false
}

// expect consumes the word w or fails with a syntax error.
func (s *scanner) expect(w string) error {
	if s.accept(w) {
		return nil
	}
	return s.errorf(s.peek(), "expected %s", strings.ToUpper(w))
}

// name consumes an identifier naming a `what`.
func (s *scanner) name(what string) (string, error) {
	t := s.peek()
	if !t.isName() {
		return "", s.errorf(t, "expected a %s name", what)
	}
	if t.val == "" {
		return "", s.errorf(t, "a %s name cannot be empty", what)
	}
	s.next()
	if s.peek().typ == '-' {
		return "", s.errorf(s.peek(), "a %s name containing '-' must be quoted with backticks", what)
	}
	return t.val, nil
}

// end checks that the statement ends here.
func (s *scanner) end() error {
	if t := s.peek(); !t.isEnd() {
		return s.errorf(t, "expected end of statement")
	}
	return nil
}

// errorf returns a syntax error at token t.
func (s *scanner) errorf(t token, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if t.typ == ast.LEX_ERROR {
		msg = "unterminated or malformed token; " + msg
	}
	return &SyntaxError{Position: t.end + 1, Near: t.text(), Message: msg}
}

// rest is the offset where the text after this statement begins: just past
// its ';', or the end of the input. It lexes the statement to its end.
func (s *scanner) rest() int {
	for !s.done {
		s.fill(len(s.toks))
	}
	if last := s.toks[len(s.toks)-1]; last.typ == ';' {
		return min(last.end, len(s.src))
	}
	return len(s.src)
}

// safeScan is tkn.Scan, with a panic of the tokenizer (it has some on
// malformed input, such as "/*!*/"; vitess's parser recovers them too) made
// a lexical error.
func safeScan(tkn *ast.Tokenizer) (typ int, val []byte) {
	defer func() {
		if recover() != nil {
			typ, val = ast.LEX_ERROR, nil
		}
	}()
	return tkn.Scan()
}
