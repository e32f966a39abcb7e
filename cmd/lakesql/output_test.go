package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_FormatsKeepTypes: --format json renders each value by its
// column's type (DECIMAL scale, a midnight DATETIME's time, binary as
// base64, JSON documents embedded) and CSV writes NULL as \N, distinct
// from the empty string.
func TestRun_FormatsKeepTypes(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "lake")
	setup := "CREATE DATABASE d; CREATE TABLE d.o (id INT, d DECIMAL(4,2), dt DATETIME, dt6 DATETIME(6), dt3 DATETIME(3), dd DATE, b BLOB, vb VARBINARY(4), j JSON, s VARCHAR(5), f DOUBLE, u BIGINT UNSIGNED, big DECIMAL(38,10));" +
		" INSERT INTO d.o VALUES (1, 10, '2024-01-01 00:00:00', '2024-01-01 00:00:00', '2024-01-01 10:00:00.5', '2024-01-01', x'00ff10', x'DEADBEEF', '{\"a\":[1]}', 'x', 0.5, 18446744073709551615, 1234567890123456789012345678.0123456789)," +
		" (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '', NULL, NULL, NULL)"
	if _, stderr, err := runCLI(t, "", "--warehouse", wh, "-e", setup); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	out, stderr, err := runCLI(t, "", "--warehouse", wh, "--format", "json", "-e", "SELECT * FROM d.o ORDER BY id")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	want := `{"b":"AP8Q","big":1234567890123456789012345678.0123456789,"d":10.00,"dd":"2024-01-01","dt":"2024-01-01 00:00:00","dt3":"2024-01-01 10:00:00.500","dt6":"2024-01-01 00:00:00.000000","f":0.5,"id":1,"j":{"a":[1]},"s":"x","u":18446744073709551615,"vb":"3q2+7w=="}` + "\n" +
		`{"b":null,"big":null,"d":null,"dd":null,"dt":null,"dt3":null,"dt6":null,"f":null,"id":2,"j":null,"s":"","u":null,"vb":null}` + "\n"
	if out != want {
		t.Errorf("json:\n%s\nwant:\n%s", out, want)
	}
	out, stderr, err = runCLI(t, "", "--warehouse", wh, "--format", "csv", "-e", "SELECT id, d, dt6, s, u FROM d.o ORDER BY id")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if want := "id,d,dt6,s,u\n1,10.00,2024-01-01 00:00:00.000000,x,18446744073709551615\n2,\\N,\\N,,\\N\n"; out != want {
		t.Errorf("csv %q, want %q", out, want)
	}
	out, _, err = runCLI(t, "", "--warehouse", wh, "--format", "tsv", "-e", "SELECT id, d, s FROM d.o WHERE id = 2")
	if err != nil || !strings.HasSuffix(out, "2\tNULL\t\n") {
		t.Errorf("tsv %q %v: NULL stays NULL as in mysql --batch", out, err)
	}
}
