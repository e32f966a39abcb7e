package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestPushdown_FilesWithoutStats: files written by another writer with
// no column statistics and no page index (registered by add_files, so
// the manifest has no bounds and the footers no min/max), next to files
// lakesql wrote, give every pushed-down query (vectorised aggregates,
// COUNT(DISTINCT), top-N, the manifest answer, joins) exactly what the
// row path gives: nothing is pruned or answered from stats that are not
// there.
func TestPushdown_FilesWithoutStats(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (k BIGINT, v DECIMAL(10,2), s VARCHAR(10), dt DATE)",
		"CREATE TABLE o (k BIGINT, name VARCHAR(10))",
		"INSERT INTO o VALUES (1, 'one'), (2, 'two'), (50, 'fifty'), (NULL, 'none')",
		"CREATE TABLE o2 (k BIGINT, tag VARCHAR(10))",
		"INSERT INTO o2 VALUES (1, 'x'), (50, 'y'), (50, 'z'), (1500, 'w'), (NULL, 'n')",
		"INSERT INTO t VALUES (1, 1.50, 'a', '1969-07-20'), (2, NULL, '', '2000-01-01'), (NULL, -3.25, NULL, NULL)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ds, err := e.Catalog().Dataset(ctx, catalogstore.Ident{Workspace: "main", Collection: "d", Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(5))
	var keys []string
	for f := range 3 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(&ds.Schema))
		for r := range 3000 {
			if rng.Intn(9) == 0 {
				b.Field(0).AppendNull()
			} else {
				b.Field(0).(*array.Int64Builder).Append(int64(f*1000 + r - 1500))
			}
			if rng.Intn(7) == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rng.Intn(20001) - 10000)))
			}
			b.Field(2).(*array.StringBuilder).Append([]string{"", "a", "b", "zz", "é"}[rng.Intn(5)])
			b.Field(3).(*array.Date32Builder).Append(arrow.Date32(rng.Intn(40000) - 10000))
		}
		rec := b.NewRecord()
		b.Release()
		var buf bytes.Buffer
		props := parquet.NewWriterProperties(parquet.WithStats(false), parquet.WithPageIndexEnabled(false), parquet.WithDataPageSize(4096))
		w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, props, pqarrow.NewArrowWriterProperties())
		if err == nil {
			err = w.Write(rec)
		}
		if err == nil {
			err = w.Close()
		}
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("incoming/nostats-%d.parquet", f)
		if err := e.Catalog().Blob().Put(ctx, key, bytes.NewReader(buf.Bytes()), blob.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
	}
	if err := conn.Exec(ctx, "CALL add_files('d.t', '"+strings.Join(keys, ",")+"')"); err != nil {
		t.Fatal(err)
	}
	cur, err := e.Catalog().Dataset(ctx, ds.Ident())
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := e.Catalog().Files(ctx, cur, cur.CurrentSnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	bare := 0
	for _, f := range files {
		if strings.Contains(f.Path, "nostats") {
			bare++
			for i := range f.LowerBounds {
				if f.LowerBounds[i] != nil || f.UpperBounds[i] != nil {
					t.Fatalf("%s has bounds for column %d: the fixture needs files without stats", f.Path, i)
				}
			}
		}
	}
	if bare != 3 || len(files) != 4 {
		t.Fatalf("%d files, %d of them without stats; want 4 and 3", len(files), bare)
	}
	const slow = "(k IS NULL OR k IS NOT NULL)" // a conjunct no pushdown takes
	for _, c := range []struct{ sel, where, tail, node string }{
		{"COUNT(*), COUNT(k), MIN(k), MAX(k), MIN(v), MAX(s), MIN(dt)", "", "", "StatsAnswer|VectorAggregate"},
		{"COUNT(*), MIN(k), MAX(v)", "k >= 100", "", "VectorAggregate"},
		{"COUNT(*), SUM(v), AVG(v)", "k BETWEEN -20 AND 20 AND v > 0", "", "VectorAggregate"},
		{"s, COUNT(*), SUM(v), COUNT(DISTINCT dt)", "dt < DATE '1970-01-01'", "GROUP BY s", "VectorAggregate"},
		{"COUNT(*), MAX(k)", "s = 'zz'", "", "VectorAggregate"},
		{"COUNT(*)", "k IN (5, 1005, 2005, 99999)", "", "VectorAggregate"},
		{"COUNT(*)", "v IS NULL", "", "VectorAggregate"},
		{"k, v, s", "k > 1400", "ORDER BY v DESC, k LIMIT 7", "TopN"},
		{"o.name, COUNT(*), SUM(t.v)", "t.k < 60", "GROUP BY o.name", "VectorJoin"},
		// Three tables: the build sides' keys would prune the probe's
		// files by their bounds, which these files lack.
		{"o2.tag, COUNT(*), SUM(t.v), MIN(o.name)", "", "GROUP BY o2.tag", "VectorJoinAggregate(probe d.t, build o vectorised, o2 vectorised)|VectorJoinAggregate(probe d.t, build o2 vectorised, o vectorised)"},
	} {
		from, slow := " FROM t", slow
		switch {
		case strings.Contains(c.node, "o2"):
			from, slow = " FROM t JOIN o ON t.k = o.k JOIN o2 ON o2.k = t.k", "(t.k IS NULL OR t.k IS NOT NULL OR o2.tag IS NULL)"
		case strings.HasPrefix(c.node, "VectorJoin"):
			from, slow = " FROM t JOIN o ON t.k = o.k", "(t.k IS NULL OR t.k IS NOT NULL)"
		}
		where, slowWhere := "", " WHERE "+slow
		if c.where != "" {
			where, slowWhere = " WHERE "+c.where, " WHERE ("+c.where+") AND "+slow
		}
		fast := "SELECT " + c.sel + from + where + " " + c.tail
		plan := enginetest.Explain(t, conn, fast)
		found := false
		for _, n := range strings.Split(c.node, "|") {
			found = found || strings.Contains(plan, n)
		}
		if !found {
			t.Errorf("%s: no %s in the plan:\n%s", fast, c.node, plan)
		}
		ordered := strings.Contains(c.tail, "ORDER BY")
		if got, want := enginetest.Typed(t, conn, fast, ordered), enginetest.Typed(t, conn, "SELECT "+c.sel+from+slowWhere+" "+c.tail, ordered); got != want {
			t.Errorf("%s\npushed down:\n%s\nrow path:\n%s", fast, got, want)
		}
	}
}
