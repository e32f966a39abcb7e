package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// errBackendMismatch is returned for a metastore and an object store that
// cannot serve one shared catalog: a local (SQLite) metastore over GCS
// storage, whose catalog no other server would see, or Firestore over
// local files, which no other server could read. Nothing is opened.
// (engine.Config allows both: tests pair the Firestore emulator with a
// local folder.)
var errBackendMismatch = errors.New("--metastore and --storage do not match")

// checkBackends refuses the combinations errBackendMismatch describes,
// naming the flags that fix them.
func (g *globalFlags) checkBackends() error {
	localMeta := g.metastore == "" || strings.HasPrefix(g.metastore, "sqlite:")
	gcsData := strings.HasPrefix(g.storage, "gs://")
	switch {
	case localMeta && gcsData:
		where := strings.TrimPrefix(g.metastore, "sqlite:")
		if where == "" {
			where = filepath.Join(g.warehouse, "lakesql.db")
		}
		return fmt.Errorf("%w: --storage %s is shared, but the metastore would be the local SQLite file %s, so no other server would see the catalog: "+
			"add --metastore firestore://PROJECT[/DATABASE] (or drop --storage for a local warehouse)", errBackendMismatch, g.storage, where)
	case !localMeta && !gcsData:
		where := g.storage
		if where == "" {
			where = g.warehouse
		}
		return fmt.Errorf("%w: --metastore %s is shared, but the data would be in the local folder %s, which no other server can read: "+
			"add --storage gs://BUCKET/PREFIX (or drop --metastore for a local warehouse)", errBackendMismatch, g.metastore, where)
	}
	return nil
}

// describe names the warehouse for messages: the folder, or the shared
// metastore and storage.
func (g *globalFlags) describe() string {
	if g.metastore == "" && g.storage == "" {
		return "warehouse " + g.warehouse
	}
	ms := g.metastore
	if ms == "" {
		ms = "sqlite in " + g.warehouse
	}
	st := g.storage
	if st == "" {
		st = g.warehouse
	}
	return fmt.Sprintf("catalog in %s (data in %s)", ms, st)
}
