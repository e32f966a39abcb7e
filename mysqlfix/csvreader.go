package mysqlfix

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// CSVFormat is the field and line syntax of LOAD DATA and SELECT … INTO
// OUTFILE (MySQL's FIELDS and LINES clauses).
type CSVFormat struct {
	FieldsTerminatedBy string // default "\t"
	EnclosedBy         string // "" or one character
	EscapedBy          string // "" or one character; default "\\"
	LinesStartingBy    string // a prefix skipped on each line; lines without it are skipped
	LinesTerminatedBy  string // default "\n"
	// BareNULL reads the unenclosed word NULL as NULL (MySQL does when an
	// enclosing character is set or no escape character is).
	BareNULL bool
}

// CSVField is one field read: its value after unquoting and unescaping,
// whether it was NULL (\N, or the bare word NULL where MySQL reads one),
// and whether it was enclosed.
type CSVField struct {
	Value  string
	Null   bool
	Quoted bool
}

// ErrCSV: the input does not follow the format (an unterminated quoted
// field). The error says where.
var ErrCSV = errors.New("malformed CSV input")

// CSVReader reads records in a CSVFormat the way MySQL's LOAD DATA does:
// an enclosed field may hold the field and line terminators and the
// enclosing character doubled or escaped; the escape character introduces
// \0 \b \n \r \t \Z \N and otherwise stands for the character after it;
// enclosing is optional per field (MySQL reads OPTIONALLY ENCLOSED BY and
// ENCLOSED BY alike). Not safe for concurrent use.
type CSVReader struct {
	r    *bufio.Reader
	f    CSVFormat
	line int // records started, for messages
	buf  bytes.Buffer
}

// NewCSVReader returns a reader of r in format f; empty terminators take
// MySQL's defaults (tab, newline).
func NewCSVReader(r io.Reader, f CSVFormat) *CSVReader {
	if f.FieldsTerminatedBy == "" {
		f.FieldsTerminatedBy = "\t"
	}
	if f.LinesTerminatedBy == "" {
		f.LinesTerminatedBy = "\n"
	}
	return &CSVReader{r: bufio.NewReaderSize(r, 1<<16), f: f}
}

// at reports whether the input continues with s (without consuming it).
func (c *CSVReader) at(s string) bool {
	if s == "" {
		return false
	}
	b, _ := c.r.Peek(len(s))
	return string(b) == s
}

func (c *CSVReader) eof() bool {
	_, err := c.r.Peek(1)
	return err != nil
}

// SkipLines skips n lines (up to each line terminator, quotes ignored), as
// IGNORE n LINES does.
func (c *CSVReader) SkipLines(n int64) error {
	for ; n > 0 && !c.eof(); n-- {
		for !c.eof() && !c.at(c.f.LinesTerminatedBy) {
			if _, err := c.r.ReadByte(); err != nil {
				return err
			}
		}
		c.r.Discard(len(c.f.LinesTerminatedBy))
	}
	return nil
}

// skipToPrefix consumes input up to and including LinesStartingBy on the
// current line; false when the line lacks it (the line is consumed).
func (c *CSVReader) skipToPrefix() bool {
	for !c.eof() {
		if c.at(c.f.LinesStartingBy) {
			c.r.Discard(len(c.f.LinesStartingBy))
			return true
		}
		if c.at(c.f.LinesTerminatedBy) {
			c.r.Discard(len(c.f.LinesTerminatedBy))
			return false
		}
		c.r.ReadByte()
	}
	return false
}

// Read returns the next record, or io.EOF.
func (c *CSVReader) Read() ([]CSVField, error) {
	for {
		if c.eof() {
			return nil, io.EOF
		}
		c.line++
		if c.f.LinesStartingBy != "" && !c.skipToPrefix() {
			continue
		}
		if c.at(c.f.LinesTerminatedBy) { // an empty line holds no record
			c.r.Discard(len(c.f.LinesTerminatedBy))
			continue
		}
		var rec []CSVField
		for {
			f, end, err := c.field()
			if err != nil {
				return nil, err
			}
			rec = append(rec, f)
			if end {
				return rec, nil
			}
		}
	}
}

// field reads one field and its terminator; end reports the end of the
// record (a line terminator or the end of the input).
func (c *CSVReader) field() (CSVField, bool, error) {
	if c.f.EnclosedBy != "" && c.at(c.f.EnclosedBy) {
		c.r.Discard(len(c.f.EnclosedBy))
		return c.quoted()
	}
	c.buf.Reset()
	escaped := false // the field had an escape sequence (\N must be the whole field)
	for {
		switch {
		case c.eof():
			return c.bare(escaped), true, nil
		case c.at(c.f.FieldsTerminatedBy):
			c.r.Discard(len(c.f.FieldsTerminatedBy))
			return c.bare(escaped), false, nil
		case c.at(c.f.LinesTerminatedBy):
			c.r.Discard(len(c.f.LinesTerminatedBy))
			return c.bare(escaped), true, nil
		case c.at(c.f.EscapedBy):
			c.r.Discard(len(c.f.EscapedBy))
			b, err := c.r.ReadByte()
			if err != nil {
				c.buf.WriteString(c.f.EscapedBy)
				continue
			}
			if b == 'N' && c.buf.Len() == 0 && !escaped && c.fieldEndsHere() {
				return CSVField{Null: true}, c.consumeEnd(), nil
			}
			escaped = true
			c.buf.WriteByte(unescape(b))
		default:
			b, _ := c.r.ReadByte()
			c.buf.WriteByte(b)
		}
	}
}

// fieldEndsHere reports whether a terminator (or the end) follows.
func (c *CSVReader) fieldEndsHere() bool {
	return c.eof() || c.at(c.f.FieldsTerminatedBy) || c.at(c.f.LinesTerminatedBy)
}

// consumeEnd consumes the terminator fieldEndsHere saw; true at the end
// of the record.
func (c *CSVReader) consumeEnd() bool {
	switch {
	case c.eof():
		return true
	case c.at(c.f.FieldsTerminatedBy):
		c.r.Discard(len(c.f.FieldsTerminatedBy))
		return false
	default:
		c.r.Discard(len(c.f.LinesTerminatedBy))
		return true
	}
}

// bare is the unenclosed field in buf (the word NULL is NULL with
// BareNULL).
func (c *CSVReader) bare(escaped bool) CSVField {
	v := c.buf.String()
	if !escaped && v == "NULL" && c.f.BareNULL {
		return CSVField{Null: true}
	}
	return CSVField{Value: v}
}

// quoted reads an enclosed field after its opening character: up to a
// closing character followed by a terminator or the end of the input.
func (c *CSVReader) quoted() (CSVField, bool, error) {
	c.buf.Reset()
	start := c.line
	for {
		switch {
		case c.eof():
			return CSVField{}, false, fmt.Errorf("%w: record %d: a field opened with %s is not closed", ErrCSV, start, c.f.EnclosedBy)
		case c.at(c.f.EscapedBy):
			c.r.Discard(len(c.f.EscapedBy))
			b, err := c.r.ReadByte()
			if err != nil {
				return CSVField{}, false, fmt.Errorf("%w: record %d: input ends after an escape character", ErrCSV, start)
			}
			c.buf.WriteByte(unescape(b))
		case c.at(c.f.EnclosedBy):
			c.r.Discard(len(c.f.EnclosedBy))
			if c.at(c.f.EnclosedBy) { // doubled: one literal character
				c.r.Discard(len(c.f.EnclosedBy))
				c.buf.WriteString(c.f.EnclosedBy)
				continue
			}
			if c.fieldEndsHere() {
				return CSVField{Value: c.buf.String(), Quoted: true}, c.consumeEnd(), nil
			}
			// A closing character not followed by a terminator is data
			// (MySQL reads "a"b" as a"b).
			c.buf.WriteString(c.f.EnclosedBy)
		default:
			b, _ := c.r.ReadByte()
			c.buf.WriteByte(b)
		}
	}
}

// unescape is the character an escape sequence stands for.
func unescape(b byte) byte {
	switch b {
	case '0':
		return 0
	case 'b':
		return '\b'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'Z':
		return 26
	}
	return b
}
