package mysqlfix

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// render shows records as fields joined by "|", NULL as <N> and quoted
// fields in [].
func renderCSV(t *testing.T, in string, f CSVFormat) (string, error) {
	t.Helper()
	r := NewCSVReader(strings.NewReader(in), f)
	var recs []string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return strings.Join(recs, "\n"), nil
		}
		if err != nil {
			return strings.Join(recs, "\n"), err
		}
		var cells []string
		for _, c := range rec {
			switch {
			case c.Null:
				cells = append(cells, "<N>")
			case c.Quoted:
				cells = append(cells, "["+c.Value+"]")
			default:
				cells = append(cells, c.Value)
			}
		}
		recs = append(recs, strings.Join(cells, "|"))
	}
}

func TestCSVReader(t *testing.T) {
	csv := CSVFormat{FieldsTerminatedBy: ",", EnclosedBy: `"`, EscapedBy: `\`, BareNULL: true}
	tsv := CSVFormat{EscapedBy: `\`}
	for _, tc := range []struct {
		name, in string
		f        CSVFormat
		want     string
		wantErr  bool
	}{
		{"tsv/defaults", "1\ta\n2\tb\n", tsv, "1|a\n2|b", false},
		{"tsv/escapes", `a\tb\nc` + "\t" + `\N` + "\t" + `\\` + "\t" + `x\0y` + "\n", tsv, "a\tb\nc|<N>|\\|x\x00y", false},
		{"tsv/N-inside-is-data", `a\Nb` + "\n", tsv, "aNb", false},
		{"tsv/no-final-newline", "1\ta", tsv, "1|a", false},
		{"tsv/empty-lines-skipped", "1\n\n2\n", tsv, "1\n2", false},
		{"csv/optional-quotes", `1,"a, b",plain` + "\n", csv, "1|[a, b]|plain", false},
		{"csv/doubled-quote", `"say ""hi"""` + "\n", csv, `[say "hi"]`, false},
		{"csv/escaped-quote", `"back\"slash"` + "\n", csv, `[back"slash]`, false},
		{"csv/newline-in-quotes", "\"two\nlines\",x\n", csv, "[two\nlines]|x", false},
		{"csv/null-word-and-quoted-null", `NULL,"NULL",\N` + "\n", csv, "<N>|[NULL]|<N>", false},
		{"csv/quote-inside-bare-field", `a"b,c` + "\n", csv, `a"b|c`, false},
		{"csv/closing-quote-not-at-end", `"a"b",c` + "\n", csv, `[a"b]|c`, false},
		{"csv/empty-fields", ",,\n", csv, "||", false},
		{"csv/unterminated", "\"open\n", csv, "", true},
		{"crlf", "1|a\r\n2|b\r\n", CSVFormat{FieldsTerminatedBy: "|", LinesTerminatedBy: "\r\n"}, "1|a\n2|b", false},
		{"multi-char-terminators", "1::a##2::b##", CSVFormat{FieldsTerminatedBy: "::", LinesTerminatedBy: "##"}, "1|a\n2|b", false},
		{"starting-by", "xx1\ta\nnoise\nyyxx2\tb\n", CSVFormat{LinesStartingBy: "xx"}, "1|a\n2|b", false},
		{"no-escape", `a\b` + "\n", CSVFormat{}, `a\b`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := renderCSV(t, tc.in, tc.f)
			if tc.wantErr {
				if !errors.Is(err, ErrCSV) {
					t.Fatalf("got %q, %v; want ErrCSV", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestCSVReader_SkipLines(t *testing.T) {
	r := NewCSVReader(strings.NewReader("h1\nh2\n1\n"), CSVFormat{})
	if err := r.SkipLines(2); err != nil {
		t.Fatal(err)
	}
	rec, err := r.Read()
	if err != nil || len(rec) != 1 || rec[0].Value != "1" {
		t.Fatalf("after IGNORE 2 LINES: %v %v", rec, err)
	}
}
