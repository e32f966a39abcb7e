// Command demodata writes the SQL that loads the demo's sample: a small
// TPC-H-shaped database (region, nation, customer, orders, lineitem; at
// the default scale 1,500 customers, 15,000 orders and about 60,000 line
// items, TPC-H's SF 0.01 row counts) generated deterministically, so
// every run of `make demo` shows the same answers. It is not dbgen: the
// values follow TPC-H's shapes (date range, priorities, flags, price
// formula), not its exact text.
//
//	go run ./scripts/demodata [-scale 0.01] [-db tpch] | lakesql
//
// Orders and line items are inserted in date order, a year per INSERT,
// so each year's data is its own files whose date bounds do not
// overlap: range filters on dates prune files (EXPLAIN ANALYZE shows it).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"
)

func main() {
	scale := flag.Float64("scale", 0.01, "TPC-H scale factor (row counts)")
	db := flag.String("db", "tpch", "database (collection) to create")
	flag.Parse()
	w := bufio.NewWriter(os.Stdout)
	if err := write(w, *db, *scale); err != nil {
		fmt.Fprintln(os.Stderr, "demodata:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "demodata:", err)
		os.Exit(1)
	}
}

var (
	regions = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}
	// nations are TPC-H's 25, with their region.
	nations = []struct {
		name   string
		region int
	}{
		{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
		{"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
		{"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0},
		{"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
		{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
	}
	segments   = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"}
	priorities = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	shipModes  = []string{"AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"}
)

// TPC-H's order dates run from 1992-01-01 to 1998-08-02.
var (
	firstDay = time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)
	lastDay  = time.Date(1998, 8, 2, 0, 0, 0, 0, time.UTC)
	// lineitems are "shipped" (flag R/A) before this day, else open (N).
	currentDay = time.Date(1995, 6, 17, 0, 0, 0, 0, time.UTC)
)

func write(w io.Writer, db string, scale float64) error {
	if scale <= 0 || scale > 1 {
		return fmt.Errorf("-scale %v: use a factor in (0, 1]", scale)
	}
	rng := rand.New(rand.NewPCG(20, 1992)) // fixed: the same data every run
	nCust, nOrders := max(1, int(150_000*scale)), max(1, int(1_500_000*scale))
	fmt.Fprintf(w, "CREATE DATABASE %s;\nUSE %s;\n", db, db)
	fmt.Fprint(w, `CREATE TABLE region (r_regionkey INT, r_name VARCHAR(25));
CREATE TABLE nation (n_nationkey INT, n_name VARCHAR(25), n_regionkey INT);
CREATE TABLE customer (c_custkey BIGINT, c_name VARCHAR(25), c_nationkey INT, c_acctbal DECIMAL(12,2), c_mktsegment VARCHAR(10));
CREATE TABLE orders (o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus CHAR(1), o_totalprice DECIMAL(12,2),
  o_orderdate DATE, o_orderpriority VARCHAR(15)) PARTITIONED BY (year(o_orderdate));
CREATE TABLE lineitem (l_orderkey BIGINT, l_linenumber INT, l_quantity DECIMAL(12,2), l_extendedprice DECIMAL(12,2),
  l_discount DECIMAL(12,2), l_tax DECIMAL(12,2), l_returnflag CHAR(1), l_linestatus CHAR(1), l_shipdate DATE, l_shipmode VARCHAR(10));
`)
	rows := make([]string, 0, len(regions))
	for i, r := range regions {
		rows = append(rows, fmt.Sprintf("(%d, '%s')", i, r))
	}
	insert(w, "region", rows)
	rows = rows[:0]
	for i, n := range nations {
		rows = append(rows, fmt.Sprintf("(%d, '%s', %d)", i, n.name, n.region))
	}
	insert(w, "nation", rows)
	rows = rows[:0]
	for c := 1; c <= nCust; c++ {
		bal := rng.IntN(1_099_999) - 99_999 // -999.99 .. 9999.99, in cents
		rows = append(rows, fmt.Sprintf("(%d, 'Customer#%09d', %d, %s, '%s')", c, c, rng.IntN(len(nations)), cents(int64(bal)), segments[rng.IntN(len(segments))]))
	}
	insert(w, "customer", rows)
	return writeOrders(w, rng, nOrders, nCust)
}

// writeOrders writes the orders in date order with their line items, one
// INSERT per table and year.
func writeOrders(w io.Writer, rng *rand.Rand, nOrders, nCust int) error {
	days := int(lastDay.Sub(firstDay).Hours()/24) - 151 // TPC-H leaves room for shipping
	dates := make([]int, nOrders)
	for i := range dates {
		dates[i] = rng.IntN(days)
	}
	slices.Sort(dates)
	var orders, items []string
	year := 0
	flush := func() {
		insert(w, "orders", orders)
		insert(w, "lineitem", items)
		orders, items = orders[:0], items[:0]
	}
	for i, d := range dates {
		od := firstDay.AddDate(0, 0, d)
		if od.Year() != year && len(orders) > 0 {
			flush()
		}
		year = od.Year()
		key := int64(i + 1)
		var total int64
		open := false
		n := 1 + rng.IntN(7)
		for l := 1; l <= n; l++ {
			qty := int64(1 + rng.IntN(50))
			part := int64(1 + rng.IntN(200_000))
			price := qty * (90_000 + part/10%20_001 + 100*(part%1_000)) // in cents: TPC-H's retail price times quantity
			disc, tax := int64(rng.IntN(11)), int64(rng.IntN(9))
			ship := od.AddDate(0, 0, 1+rng.IntN(121))
			flag, status := "N", "O"
			if ship.Before(currentDay) {
				flag, status = []string{"R", "A"}[rng.IntN(2)], "F"
			} else {
				open = true
			}
			total += price * (100 - disc) * (100 + tax) / 10_000
			items = append(items, fmt.Sprintf("(%d, %d, %d, %s, 0.%02d, 0.%02d, '%s', '%s', '%s', '%s')",
				key, l, qty, cents(price), disc, tax, flag, status, ship.Format(time.DateOnly), shipModes[rng.IntN(len(shipModes))]))
		}
		status := "F"
		if open {
			status = "O"
		}
		orders = append(orders, fmt.Sprintf("(%d, %d, '%s', %s, '%s', '%s')",
			key, 1+rng.IntN(nCust), status, cents(total), od.Format(time.DateOnly), priorities[rng.IntN(len(priorities))]))
	}
	if len(orders) > 0 {
		flush()
	}
	return nil
}

// insert writes one INSERT of rows into table.
func insert(w io.Writer, table string, rows []string) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "INSERT INTO %s VALUES\n%s;\n", table, strings.Join(rows, ",\n"))
}

// cents renders an amount in cents as a decimal literal.
func cents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}
