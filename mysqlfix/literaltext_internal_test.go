package mysqlfix

import "testing"

func TestFixLiterals(t *testing.T) {
	tests := []struct {
		name, in, want string
		ansi           bool
	}{
		{"like escapes", `SELECT 'a\_b', "x\%"`, `SELECT 'a\\_b', "x\\%"`, false},
		{"other escapes", `SELECT 'a\nb\\_c\'_'`, `SELECT 'a\nb\\_c\'_'`, false},
		{"doubled quote", `SELECT 'it''s\_'`, `SELECT 'it''s\\_'`, false},
		{"identifier", "SELECT `a\\_b` FROM t", "SELECT `a\\_b` FROM t", false},
		{"ansi identifier", `SELECT "a\_b" FROM t`, `SELECT "a\_b" FROM t`, true},
		{"comment", "SELECT 1 -- '\\_'\n, '\\_'", "SELECT 1 -- '\\_'\n, '\\\\_'", false},
		{"date", `SELECT DATE '2024-01-15', date"2024-02-29"`, `SELECT CAST('2024-01-15' AS DATE), CAST("2024-02-29" AS DATE)`, false},
		{"timestamp fsp", `SELECT TIMESTAMP '2024-01-15 10:30:00.125'`, `SELECT CAST('2024-01-15 10:30:00.125' AS DATETIME(3))`, false},
		{"timestamp", `SELECT timestamp '2024-01-15 10:30:00'`, `SELECT CAST('2024-01-15 10:30:00' AS DATETIME(0))`, false},
		{"column named date", `SELECT t.date 'x', date FROM t`, `SELECT t.date 'x', date FROM t`, false},
		{"date function", `SELECT DATE('2024-01-15'), DATE_ADD(d, INTERVAL 1 DAY)`, `SELECT DATE('2024-01-15'), DATE_ADD(d, INTERVAL 1 DAY)`, false},
		{"default", `CREATE TABLE t (d DATE DEFAULT DATE '2024-01-01')`, `CREATE TABLE t (d DATE DEFAULT DATE '2024-01-01')`, false},
		{"in string", `SELECT 'DATE ''x'''`, `SELECT 'DATE ''x'''`, false},
		{"cast", `SELECT CAST(d AS DATE) 'alias'`, `SELECT CAST(d AS DATE) 'alias'`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := fixLiterals(tt.in, tt.ansi)
			if got != tt.want || changed != (tt.in != tt.want) {
				t.Errorf("fixLiterals(%q) = %q, %v; want %q", tt.in, got, changed, tt.want)
			}
		})
	}
}
