package iceberg

import (
	"context"
	"sort"

	"github.com/lakesql/lakesql/catalogstore"
)

// writeAppendList writes the manifest list of snap, an append to the
// exported parent, from the files snap added alone: an append removes
// nothing and leaves the parent's entries as they were, so every parent
// manifest with live files is reused as is and the added files, whose
// group (their snapshot, their spec) is new, get manifests of their own.
// That is what writeList's comparison of both snapshots' files would
// produce, without decoding the parent's and snapshot's whole manifests.
// ok is false, with nothing written, when snap is not such an append or
// its summary disagrees with what was read: the caller then compares in
// full.
func (x *export) writeAppendList(ctx context.Context, snap *catalogstore.Snapshot, parent *listState) (st *listState, ok bool, err error) {
	if (snap.Operation != catalogstore.OpAppend && snap.Operation != catalogstore.OpAddFiles) || snap.Summary.DeletedFiles != 0 {
		return nil, false, nil
	}
	var list []manifestFile
	var keys []groupKey
	var parentLive int64
	for _, m := range parent.list {
		g, ok := parseManifestName(m.Path)
		if !ok {
			return nil, false, nil // writeList would rewrite that group
		}
		// A manifest of DELETED entries only (its group lost all its
		// files in the parent) is not carried forward.
		if live := int64(m.AddedFilesCount) + int64(m.ExistingFilesCount); live > 0 {
			parentLive += live
			list, keys = append(list, m), append(keys, g)
		}
	}
	added, _, err := x.cat.AddedFiles(ctx, x.ds, snap.ID)
	if err != nil {
		return nil, false, err
	}
	x.decoded += len(added)
	// Files the snapshot kept under another snapshot's id, or removed,
	// would change other groups: compare in full instead.
	if int64(len(added)) != snap.Summary.AddedFiles || parentLive+int64(len(added)) != snap.Summary.TotalFiles {
		return nil, false, nil
	}
	for g, fs := range groupFiles(added) {
		m, err := x.writeManifest(ctx, snap, g, fs, nil)
		if err != nil {
			return nil, false, err
		}
		list, keys = append(list, m), append(keys, g)
	}
	// writeList's order: newest group first, then by spec.
	idx := make([]int, len(list))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ka, kb := keys[idx[a]], keys[idx[b]]
		if ka.added != kb.added {
			return ka.added > kb.added
		}
		return ka.specID < kb.specID
	})
	sorted := make([]manifestFile, len(list))
	for i, k := range idx {
		sorted[i] = list[k]
	}
	st, err = x.putList(ctx, snap, sorted)
	return st, err == nil, err
}
