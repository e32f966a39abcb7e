package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/engine"
)

// genVersion changes whenever the generator's output changes, so a reused
// -dir warehouse is regenerated rather than benchmarked stale.
const genVersion = "1"

const (
	benchWorkspace  = engine.DefaultWorkspace
	benchCollection = "bench"
	author          = "bench"
)

// TPC-H's date constants, as days since 1970-01-01.
var (
	startDate   = days(1992, 1, 1)
	endDate     = days(1998, 12, 31)
	currentDate = days(1995, 6, 17)
)

func days(y int, m time.Month, d int) int32 {
	return int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

var (
	dec152 = schema.Type{Kind: schema.Decimal, Precision: 15, Scale: 2}
	tInt64 = schema.Type{Kind: schema.Int64}
	tInt32 = schema.Type{Kind: schema.Int32}
	tStr   = schema.Type{Kind: schema.String}
	tDate  = schema.Type{Kind: schema.Date}
)

func lineitemSchema() schema.Schema {
	col := func(name string, t schema.Type) schema.Column { return schema.Column{Name: name, Type: t} }
	return schema.Schema{Columns: []schema.Column{
		col("l_orderkey", tInt64),
		col("l_partkey", tInt64),
		col("l_suppkey", tInt64),
		col("l_linenumber", tInt32),
		col("l_quantity", dec152),
		col("l_extendedprice", dec152),
		col("l_discount", dec152),
		col("l_tax", dec152),
		col("l_returnflag", tStr),
		col("l_linestatus", tStr),
		col("l_shipdate", tDate),
		col("l_commitdate", tDate),
		col("l_receiptdate", tDate),
		col("l_shipinstruct", tStr),
		col("l_shipmode", tStr),
		col("l_comment", tStr),
	}}
}

func ordersSchema() schema.Schema {
	col := func(name string, t schema.Type) schema.Column { return schema.Column{Name: name, Type: t} }
	return schema.Schema{Columns: []schema.Column{
		col("o_orderkey", tInt64),
		col("o_custkey", tInt64),
		col("o_orderstatus", tStr),
		col("o_totalprice", dec152),
		col("o_orderdate", tDate),
		col("o_orderpriority", tStr),
	}}
}

var (
	shipInstructs = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	shipModes     = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	priorities    = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	words         = []string{"furiously", "carefully", "blithely", "quickly", "slyly", "final", "regular",
		"express", "pending", "special", "ironic", "bold", "even", "silent", "unusual", "accounts",
		"packages", "deposits", "requests", "theodolites", "pinto", "beans", "foxes", "ideas", "dolphins",
		"instructions", "platelets", "asymptotes", "sleep", "wake", "haggle", "nag", "use", "boost",
		"detect", "cajole", "integrate", "among", "across", "above", "along", "the"}
)

// lineitems is the generated table, column-wise and compact (strings of
// small domains as indexes, comments derived from the key at write time),
// so that 6M rows fit in a few hundred MB.
type lineitems struct {
	orderkey   []int64
	partkey    []int32
	suppkey    []int32
	linenumber []int8
	quantity   []int8  // whole units
	price      []int64 // extendedprice, cents
	discount   []int8  // hundredths
	tax        []int8  // hundredths
	returnflag []byte
	linestatus []byte
	ship       []int32
	commit     []int32
	receipt    []int32
	instruct   []uint8
	mode       []uint8
}

type orders struct {
	orderkey []int64
	custkey  []int64
	status   []byte
	total    []int64 // cents
	date     []int32
	priority []uint8
}

// retailPrice is TPC-H's P_RETAILPRICE of a part, in cents.
func retailPrice(partkey int64) int64 {
	return 90000 + (partkey/10)%20001 + 100*(partkey%1000)
}

// generate makes n lineitems (TPC-H-like distributions, a fixed seed) and
// the orders table: every tenth order, so the join table is small.
func generate(n int) (*lineitems, *orders) {
	r := rand.New(rand.NewPCG(20260701, 7))
	parts := max(int64(n/30), 100)
	supps := max(int64(n/600), 10)
	custs := max(int64(n/40), 10)
	li := &lineitems{
		orderkey: make([]int64, 0, n), partkey: make([]int32, 0, n), suppkey: make([]int32, 0, n),
		linenumber: make([]int8, 0, n), quantity: make([]int8, 0, n), price: make([]int64, 0, n),
		discount: make([]int8, 0, n), tax: make([]int8, 0, n), returnflag: make([]byte, 0, n),
		linestatus: make([]byte, 0, n), ship: make([]int32, 0, n), commit: make([]int32, 0, n),
		receipt: make([]int32, 0, n), instruct: make([]uint8, 0, n), mode: make([]uint8, 0, n),
	}
	ord := &orders{}
	lastOrderDate := endDate - 151
	for ok := int64(1); len(li.orderkey) < n; ok++ {
		odate := startDate + int32(r.IntN(int(lastOrderDate-startDate+1)))
		lines := 1 + r.IntN(7)
		var total int64
		nF, nO := 0, 0
		for ln := 1; ln <= lines && len(li.orderkey) < n; ln++ {
			pk := 1 + r.Int64N(parts)
			qty := 1 + r.IntN(50)
			price := int64(qty) * retailPrice(pk)
			ship := odate + 1 + int32(r.IntN(121))
			commit := odate + 30 + int32(r.IntN(61))
			receipt := ship + 1 + int32(r.IntN(30))
			rf := byte('N')
			if receipt <= currentDate {
				rf = "RA"[r.IntN(2)]
			}
			ls := byte('O')
			if ship <= currentDate {
				ls = 'F'
				nF++
			} else {
				nO++
			}
			li.orderkey = append(li.orderkey, ok)
			li.partkey = append(li.partkey, int32(pk))
			li.suppkey = append(li.suppkey, int32(1+r.Int64N(supps)))
			li.linenumber = append(li.linenumber, int8(ln))
			li.quantity = append(li.quantity, int8(qty))
			li.price = append(li.price, price)
			li.discount = append(li.discount, int8(r.IntN(11)))
			li.tax = append(li.tax, int8(r.IntN(9)))
			li.returnflag = append(li.returnflag, rf)
			li.linestatus = append(li.linestatus, ls)
			li.ship = append(li.ship, ship)
			li.commit = append(li.commit, commit)
			li.receipt = append(li.receipt, receipt)
			li.instruct = append(li.instruct, uint8(r.IntN(len(shipInstructs))))
			li.mode = append(li.mode, uint8(r.IntN(len(shipModes))))
			total += price
		}
		cust := 1 + r.Int64N(custs)
		prio := uint8(r.IntN(len(priorities)))
		if ok%10 != 1 {
			continue
		}
		status := byte('P')
		switch {
		case nO == 0:
			status = 'F'
		case nF == 0:
			status = 'O'
		}
		ord.orderkey = append(ord.orderkey, ok)
		ord.custkey = append(ord.custkey, cust)
		ord.status = append(ord.status, status)
		ord.total = append(ord.total, total)
		ord.date = append(ord.date, odate)
		ord.priority = append(ord.priority, prio)
	}
	return li, ord
}

// comment is a row's l_comment, derived from its key so it needs no
// storage between generation and writing.
func comment(orderkey int64, line int8, buf []byte) []byte {
	r := rand.New(rand.NewPCG(uint64(orderkey), uint64(line)))
	buf = buf[:0]
	want := 10 + r.IntN(34)
	for len(buf) < want {
		if len(buf) > 0 {
			buf = append(buf, ' ')
		}
		buf = append(buf, words[r.IntN(len(words))]...)
	}
	return buf[:want]
}

// byShipdate returns row indexes in l_shipdate order (a counting sort,
// so stable: ties stay in (orderkey, linenumber) order).
func byShipdate(li *lineitems) []int32 {
	lo, hi := li.ship[0], li.ship[0]
	for _, d := range li.ship {
		lo, hi = min(lo, d), max(hi, d)
	}
	count := make([]int, hi-lo+2)
	for _, d := range li.ship {
		count[d-lo+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	perm := make([]int32, len(li.ship))
	for i, d := range li.ship {
		perm[count[d-lo]] = int32(i)
		count[d-lo]++
	}
	return perm
}

// splitFiles cuts the sorted rows into about nfiles runs of equal size,
// each cut moved forward to a change of l_shipdate so that files cover
// disjoint date ranges.
func splitFiles(li *lineitems, perm []int32, nfiles int) [][2]int {
	n := len(perm)
	var out [][2]int
	start := 0
	for k := 1; k <= nfiles && start < n; k++ {
		end := k * n / nfiles
		if k == nfiles {
			end = n
		}
		if end <= start {
			continue
		}
		for end < n && li.ship[perm[end]] == li.ship[perm[end-1]] {
			end++
		}
		out = append(out, [2]int{start, end})
		start = end
	}
	return out
}

const batchRows = 64 * 1024

func lineitemRecords(as *arrow.Schema, li *lineitems, perm []int32) []arrow.Record {
	mem := memory.DefaultAllocator
	var recs []arrow.Record
	var cbuf []byte
	for off := 0; off < len(perm); off += batchRows {
		b := array.NewRecordBuilder(mem, as)
		part := perm[off:min(off+batchRows, len(perm))]
		for _, fb := range b.Fields() {
			fb.Reserve(len(part))
		}
		f := b.Fields()
		for _, i := range part {
			f[0].(*array.Int64Builder).Append(li.orderkey[i])
			f[1].(*array.Int64Builder).Append(int64(li.partkey[i]))
			f[2].(*array.Int64Builder).Append(int64(li.suppkey[i]))
			f[3].(*array.Int32Builder).Append(int32(li.linenumber[i]))
			f[4].(*array.Decimal128Builder).Append(decimal128.FromI64(int64(li.quantity[i]) * 100))
			f[5].(*array.Decimal128Builder).Append(decimal128.FromI64(li.price[i]))
			f[6].(*array.Decimal128Builder).Append(decimal128.FromI64(int64(li.discount[i])))
			f[7].(*array.Decimal128Builder).Append(decimal128.FromI64(int64(li.tax[i])))
			f[8].(*array.StringBuilder).Append(string(li.returnflag[i]))
			f[9].(*array.StringBuilder).Append(string(li.linestatus[i]))
			f[10].(*array.Date32Builder).Append(arrow.Date32(li.ship[i]))
			f[11].(*array.Date32Builder).Append(arrow.Date32(li.commit[i]))
			f[12].(*array.Date32Builder).Append(arrow.Date32(li.receipt[i]))
			f[13].(*array.StringBuilder).Append(shipInstructs[li.instruct[i]])
			f[14].(*array.StringBuilder).Append(shipModes[li.mode[i]])
			cbuf = comment(li.orderkey[i], li.linenumber[i], cbuf)
			f[15].(*array.StringBuilder).BinaryBuilder.Append(cbuf)
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return recs
}

func ordersRecord(as *arrow.Schema, o *orders) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer b.Release()
	f := b.Fields()
	for i := range o.orderkey {
		f[0].(*array.Int64Builder).Append(o.orderkey[i])
		f[1].(*array.Int64Builder).Append(o.custkey[i])
		f[2].(*array.StringBuilder).Append(string(o.status[i]))
		f[3].(*array.Decimal128Builder).Append(decimal128.FromI64(o.total[i]))
		f[4].(*array.Date32Builder).Append(arrow.Date32(o.date[i]))
		f[5].(*array.StringBuilder).Append(priorities[o.priority[i]])
	}
	return b.NewRecordBatch()
}

// dataset is a loaded benchmark table.
type dataset struct {
	ds    *catalogstore.Dataset
	files []manifest.DataFile
	paths []string // absolute paths of the data files, for DuckDB
}

// loadProps is what a warehouse was generated with; a reused -dir is
// regenerated when it differs.
func loadProps(rows, files int) map[string]string {
	return map[string]string{"bench.rows": strconv.Itoa(rows), "bench.files": strconv.Itoa(files), "bench.gen": genVersion}
}

// load generates the tables into the engine's warehouse through the
// catalog's write path (datafile.Write, one append commit per table), or
// reuses tables generated earlier with the same parameters.
func load(ctx context.Context, e *engine.Engine, warehouse string, rows, nfiles int, logf func(string, ...any)) (li, ord dataset, reused bool, err error) {
	cat := e.Catalog()
	if _, err := cat.CreateCollection(ctx, benchWorkspace, benchCollection, author, catalogstore.CreateCollectionOptions{}); err != nil && !errors.Is(err, catalogstore.ErrCollectionExists) {
		return li, ord, false, err
	}
	props := loadProps(rows, nfiles)
	liID := catalogstore.Ident{Workspace: benchWorkspace, Collection: benchCollection, Name: "lineitem"}
	ordID := catalogstore.Ident{Workspace: benchWorkspace, Collection: benchCollection, Name: "orders"}
	if a, b, ok := reuse(ctx, cat, warehouse, liID, ordID, props); ok {
		logf("reusing lineitem (%d files) and orders from %s", len(a.files), warehouse)
		return a, b, true, nil
	}
	for _, id := range []catalogstore.Ident{liID, ordID} {
		if err := cat.DropDataset(ctx, id, author); err != nil && !errors.Is(err, catalogstore.ErrDatasetNotFound) {
			return li, ord, false, err
		}
	}
	t0 := time.Now()
	gli, gord := generate(rows)
	perm := byShipdate(gli)
	logf("generated %d lineitems, %d orders in %v", len(perm), len(gord.orderkey), time.Since(t0).Round(time.Millisecond))

	t0 = time.Now()
	lds, err := cat.CreateDataset(ctx, liID, lineitemSchema(), author, catalogstore.CreateDatasetOptions{SortOrder: []string{"l_shipdate"}, Properties: props})
	if err != nil {
		return li, ord, false, err
	}
	as := datafile.ArrowSchema(&lds.Schema)
	runs := splitFiles(gli, perm, nfiles)
	added := make([]manifest.DataFile, len(runs))
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for k, run := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			recs := lineitemRecords(as, gli, perm[run[0]:run[1]])
			defer func() {
				for _, r := range recs {
					r.Release()
				}
			}()
			key := fmt.Sprintf("%s/data/lineitem-%05d.parquet", lds.Location, k)
			added[k], errs[k] = datafile.Write(ctx, cat.Blob(), key, &lds.Schema, recs, datafile.WriteOptions{})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return li, ord, false, err
	}
	if _, err := cat.Commit(ctx, liID, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: added, ExpectedUUID: lds.UUID, Author: author, Message: "bench load"}); err != nil {
		return li, ord, false, err
	}

	ods, err := cat.CreateDataset(ctx, ordID, ordersSchema(), author, catalogstore.CreateDatasetOptions{Properties: props})
	if err != nil {
		return li, ord, false, err
	}
	rec := ordersRecord(datafile.ArrowSchema(&ods.Schema), gord)
	f, err := datafile.Write(ctx, cat.Blob(), ods.Location+"/data/orders-00000.parquet", &ods.Schema, []arrow.Record{rec}, datafile.WriteOptions{})
	rec.Release()
	if err != nil {
		return li, ord, false, err
	}
	if _, err := cat.Commit(ctx, ordID, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{f}, ExpectedUUID: ods.UUID, Author: author, Message: "bench load"}); err != nil {
		return li, ord, false, err
	}
	logf("wrote %d lineitem files and 1 orders file through datafile.Write + one commit each in %v", len(added), time.Since(t0).Round(time.Millisecond))
	a, b, ok := reuse(ctx, cat, warehouse, liID, ordID, props)
	if !ok {
		return li, ord, false, fmt.Errorf("the datasets just loaded cannot be read back from the catalog")
	}
	return a, b, false, nil
}

func reuse(ctx context.Context, cat *catalogstore.Catalog, warehouse string, liID, ordID catalogstore.Ident, props map[string]string) (li, ord dataset, ok bool) {
	get := func(id catalogstore.Ident) (dataset, bool) {
		ds, err := cat.Dataset(ctx, id)
		if err != nil || ds.CurrentSnapshotID == 0 {
			return dataset{}, false
		}
		for k, v := range props {
			if ds.Properties[k] != v {
				return dataset{}, false
			}
		}
		files, _, err := cat.Files(ctx, ds, ds.CurrentSnapshotID)
		if err != nil || len(files) == 0 {
			return dataset{}, false
		}
		d := dataset{ds: ds, files: files}
		for _, f := range files {
			d.paths = append(d.paths, filepath.Join(warehouse, filepath.FromSlash(f.Path)))
		}
		return d, true
	}
	li, ok1 := get(liID)
	ord, ok2 := get(ordID)
	return li, ord, ok1 && ok2
}
