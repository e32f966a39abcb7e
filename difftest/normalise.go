package difftest

import (
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// typeClass is the part of a wire type the comparison holds both servers
// to. Integer widths are not compared: MySQL 8 and MariaDB size integer
// expressions differently (MariaDB types 1+1 as INT, MySQL 8 as BIGINT),
// and clients read every width the same way; signedness is. String types
// are one class: MariaDB sends VARCHAR where MySQL 8 sends TEXT/BLOB
// (LONGTEXT results) for the same expression.
func typeClass(t string) string {
	unsigned := strings.HasPrefix(t, "UNSIGNED ")
	base := strings.TrimPrefix(t, "UNSIGNED ")
	switch base {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR":
		if unsigned {
			return "UNSIGNED INT"
		}
		return "INT"
	case "FLOAT", "DOUBLE":
		return "FLOAT"
	case "CHAR", "VARCHAR", "TEXT", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT",
		"BINARY", "VARBINARY", "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB":
		return "STRING"
	}
	return base
}

// normaliseRows renders rows for comparison. Floating-point values are
// rounded to 12 significant digits: the servers add in different orders
// (SUM, AVG) and print the shortest round-trip form of slightly different
// doubles.
func normaliseRows(res Result) []string {
	out := make([]string, len(res.Rows))
	for i, row := range res.Rows {
		cells := make([]*string, len(row))
		for j, v := range row {
			cells[j] = v
			if v != nil && typeClass(res.Types[j]) == "DECIMAL" {
				s := lastDigitRounded(*v)
				cells[j] = &s
			}
			if v != nil && typeClass(res.Types[j]) == "FLOAT" {
				if f, err := strconv.ParseFloat(*v, 64); err == nil {
					s := strconv.FormatFloat(f, 'g', 12, 64)
					if s == "-0" {
						s = "0"
					}
					cells[j] = &s
				}
			}
		}
		out[i] = render(cells)
	}
	return out
}

// lastDigitRounded renders a DECIMAL with its last digit rounded away,
// keeping its scale as a suffix (so 5.4 and 5.40 still differ): MariaDB
// truncates AVG of a DECIMAL at scale s+4 where MySQL 8 rounds
// (-3.726666666 vs -3.726666667).
func lastDigitRounded(v string) string {
	_, frac, ok := strings.Cut(v, ".")
	if !ok {
		return v
	}
	d, err := decimal.NewFromString(v)
	if err != nil {
		return v
	}
	scale := int32(len(frac))
	return d.Round(scale-1).StringFixed(scale-1) + "~" + strconv.Itoa(int(scale))
}
