package maintenance

import (
	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// Documents below a dataset's document (DESIGN.md "Document layout").
func leasePath(id catalogstore.Ident) string {
	return meta.Join(catalogstore.DatasetDocPath(id), "maintenance", "lease")
}

func quarantinePath(id catalogstore.Ident) string {
	return meta.Join(catalogstore.DatasetDocPath(id), "maintenance", "orphan-quarantine")
}

func snapshotsColl(id catalogstore.Ident) string {
	return meta.Join(catalogstore.DatasetDocPath(id), "snapshots")
}

func tagsColl(id catalogstore.Ident) string {
	return meta.Join(catalogstore.DatasetDocPath(id), "tags")
}

func offsetsColl(id catalogstore.Ident) string {
	return meta.Join(catalogstore.DatasetDocPath(id), "offsets")
}
