package txn

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Staged is what a transaction's completed statements staged on one
// dataset, for reading its own writes: whether it truncated, the rows it
// added (in files and in records, full rows of Schema) and the full rows it
// deleted, which a read subtracts from the dataset's rows and the added
// ones as a multiset. Release frees the records.
type Staged struct {
	Schema    *schema.Schema
	Truncated bool
	Files     []manifest.DataFile
	Records   []arrow.Record
	Deletes   []arrow.Record
}

// Release frees the records.
func (s *Staged) Release() {
	release(s.Records)
	release(s.Deletes)
}

// Staged returns the staged work on incarnation uuid of dataset id under
// schema version schemaID, and false when there is none (work staged under
// another schema version, after an ALTER, is not visible).
func (x *Txn) Staged(id catalogstore.Ident, uuid string, schemaID int) (*Staged, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	t, ok := x.lookup(id, uuid)
	if !ok || t.tg.schema.ID != schemaID {
		return nil, false
	}
	st := &Staged{Schema: t.tg.schema, Truncated: t.truncate, Files: append([]manifest.DataFile(nil), t.files...)}
	for _, k := range t.staged.keys() {
		for _, r := range t.staged.m[k].recs {
			r.Retain()
			st.Records = append(st.Records, r)
		}
	}
	for _, r := range t.deletes {
		r.Retain()
		st.Deletes = append(st.Deletes, r)
	}
	return st, true
}
