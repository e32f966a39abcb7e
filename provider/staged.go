package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/arrowrow"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/scan"
)

// staged is what t's open transaction has staged in completed statements
// (read-your-writes): whether it truncated t, the rows it added, and the
// full rows (in schema order) it deleted, which a read subtracts from the
// table's rows and the added ones as a multiset. The added rows are
// projected to the fieldIDs asked for, except with deletes: then they are
// full rows too, to match them against.
type staged struct {
	truncated bool
	rows      []sql.Row
	deletes   []sql.Row
}

// pendingRows returns t's staged work in w (see staged for the rows'
// columns). Work staged under another schema version (an ALTER inside the
// transaction) or on another incarnation is not visible.
func pendingRows(ctx context.Context, w *WriteSet, t *Table, fieldIDs []int) (staged, error) {
	st, ok := w.Staged(t.ds.Ident(), t.ds.UUID, t.schema.ID)
	if !ok {
		return staged{}, nil
	}
	defer st.Release()
	out := staged{truncated: st.Truncated}
	if len(st.Deletes) > 0 {
		fieldIDs = st.Schema.FieldIDs()
		all, types := columnsOf(st.Schema, fieldIDs)
		for _, rec := range st.Deletes {
			rows, err := arrowrow.Rows(rec, all, types)
			if err != nil {
				return staged{}, err
			}
			out.deletes = append(out.deletes, rows...)
		}
	}
	cols, types := columnsOf(st.Schema, fieldIDs)
	if cols == nil {
		return out, nil // a column asked for is not in the staged schema
	}
	if len(st.Files) > 0 {
		rows, err := scan.ReadAll(ctx, scan.Request{Store: t.db.p.cat.Blob(), Files: st.Files, Schema: st.Schema, FieldIDs: fieldIDs})
		if err != nil {
			return staged{}, err
		}
		out.rows = append(out.rows, rows...)
	}
	for _, rec := range st.Records {
		rows, err := arrowrow.Rows(rec, cols, types)
		if err != nil {
			return staged{}, err
		}
		out.rows = append(out.rows, rows...)
	}
	return out, nil
}

// columnsOf returns the column indexes and types of fieldIDs in s, or nil
// when one is not in s.
func columnsOf(s *schema.Schema, fieldIDs []int) ([]int, []schema.Type) {
	cols := make([]int, len(fieldIDs))
	types := make([]schema.Type, len(fieldIDs))
	for i, id := range fieldIDs {
		cols[i] = -1
		for j, c := range s.Columns {
			if c.ID == id {
				cols[i], types[i] = j, c.Type
			}
		}
		if cols[i] < 0 {
			return nil, nil
		}
	}
	return cols, types
}

// truncate stages a truncate of t in w and returns the row count it
// removes.
func truncate(w *WriteSet, t *Table) (int, error) {
	tt, err := stage(w, t)
	if err != nil {
		return 0, err
	}
	return tt.Truncate(), nil
}

// rowMultiset counts rows by rowKey.
func rowMultiset(rows []sql.Row) map[string]int {
	m := make(map[string]int, len(rows))
	for _, r := range rows {
		m[rowKey(r)]++
	}
	return m
}

// rowKey is a canonical text form of a GMS row for multiset matching of
// rows read back (read-your-writes, table functions).
func rowKey(r sql.Row) string {
	var sb strings.Builder
	for _, v := range r {
		switch x := v.(type) {
		case nil:
			sb.WriteString("N|")
		case time.Time:
			fmt.Fprintf(&sb, "t%d|", x.UnixMicro())
		case decimal.Decimal:
			fmt.Fprintf(&sb, "d%s|", x.String())
		case []byte:
			fmt.Fprintf(&sb, "b%q|", x)
		default:
			fmt.Fprintf(&sb, "%T%v|", x, x)
		}
	}
	return sb.String()
}
