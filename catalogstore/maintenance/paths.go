package maintenance

import (
	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// Documents below a dataset's incarnation (DESIGN.md "Document layout";
// catalogstore.Dataset.DocRoot).
func leasePath(ds *catalogstore.Dataset) string {
	return meta.Join(ds.DocRoot(), "maintenance", "lease")
}

func quarantinePath(ds *catalogstore.Dataset) string {
	return meta.Join(ds.DocRoot(), "maintenance", "orphan-quarantine")
}

func snapshotsColl(ds *catalogstore.Dataset) string {
	return meta.Join(ds.DocRoot(), "snapshots")
}

func tagsColl(ds *catalogstore.Dataset) string {
	return meta.Join(ds.DocRoot(), "tags")
}

func offsetsColl(ds *catalogstore.Dataset) string {
	return meta.Join(ds.DocRoot(), "offsets")
}
