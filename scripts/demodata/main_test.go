package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestWrite_DeterministicTPCHCounts: the sample is the same every run, has
// TPC-H's row counts for the scale (1-7 line items an order), and each
// INSERT of orders holds one year in date order.
func TestWrite_DeterministicTPCHCounts(t *testing.T) {
	var a, b bytes.Buffer
	if err := write(&a, "tpch", 0.001); err != nil {
		t.Fatal(err)
	}
	if err := write(&b, "tpch", 0.001); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatal("two runs wrote different SQL")
	}
	rows := map[string]int{}
	var orderInserts [][]string
	date := regexp.MustCompile(`'(\d{4})-\d{2}-\d{2}'`)
	for _, stmt := range strings.Split(a.String(), ";\n") {
		table, values, ok := strings.Cut(strings.TrimPrefix(stmt, "INSERT INTO "), " VALUES\n")
		if !ok || !strings.HasPrefix(stmt, "INSERT INTO ") {
			continue
		}
		lines := strings.Split(values, ",\n")
		rows[table] += len(lines)
		if table == "orders" {
			orderInserts = append(orderInserts, lines)
		}
	}
	if rows["region"] != 5 || rows["nation"] != 25 || rows["customer"] != 150 || rows["orders"] != 1500 {
		t.Errorf("row counts %v: want 5 regions, 25 nations, 150 customers, 1500 orders", rows)
	}
	if li := rows["lineitem"]; li < rows["orders"] || li > 7*rows["orders"] {
		t.Errorf("%d line items for %d orders: want 1-7 each", li, rows["orders"])
	}
	prev := ""
	for i, ins := range orderInserts {
		year := date.FindStringSubmatch(ins[0])[1]
		for _, l := range ins {
			d := date.FindString(l)
			if d < prev || date.FindStringSubmatch(l)[1] != year {
				t.Fatalf("orders INSERT %d: %s out of date order or not in %s", i, l, year)
			}
			prev = d
		}
	}
	if len(orderInserts) != 7 {
		t.Errorf("%d orders INSERTs, want one a year 1992-1998", len(orderInserts))
	}
}

func TestWrite_RefusesBadScale(t *testing.T) {
	for _, s := range []float64{0, -1, 2} {
		if err := write(&bytes.Buffer{}, "tpch", s); err == nil {
			t.Errorf("scale %v accepted", s)
		}
	}
}
