package txn

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// keyRecheck returns the catalogstore.Commit.Recheck of an append to a
// table with a primary key: its rows were checked unique against the read
// snapshot, so when another writer committed since, the append re-bases
// only if none of the files that writer made live holds one of its keys
// (a concurrent INSERT of the same key is then 1062, as it would have been
// a moment later). Only key columns are read, and the appended files'
// keys only on the first lost race.
func (t *Table) keyRecheck(added []manifest.DataFile) func(context.Context, []manifest.DataFile) error {
	var mine map[string]bool
	return func(ctx context.Context, since []manifest.DataFile) error {
		if mine == nil {
			mine = map[string]bool{}
			for _, f := range added {
				if err := t.eachKey(ctx, f, func(k string, _ func() string) error { mine[k] = true; return nil }); err != nil {
					return err
				}
			}
		}
		for _, f := range since {
			err := t.eachKey(ctx, f, func(k string, show func() string) error {
				if mine[k] {
					return fmt.Errorf("%w: Duplicate entry '%s' for key '%s.PRIMARY' (committed by another writer since the statement checked it)",
						catalogstore.ErrDuplicateKey, show(), t.tg.ds.Name)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// eachKey calls fn with the key of every row of file f (read as the key
// columns only) and a function rendering it for a message.
func (t *Table) eachKey(ctx context.Context, f manifest.DataFile, fn func(key string, show func() string) error) error {
	s := t.tg.schema
	key := s.Key()
	ids := make([]int, len(key))
	cols := make([]int, len(key))
	types := make([]schema.Type, len(key))
	for i, c := range key {
		ids[i], cols[i], types[i] = s.Columns[c].ID, i, s.Columns[c].Type
	}
	r, err := datafile.Open(ctx, t.tg.cat.Blob(), f, s, ids)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		keys, err := rowKeys(rec, cols, types)
		for i := 0; err == nil && i < len(keys); i++ {
			show := func() string {
				parts := make([]string, len(cols))
				for j := range cols {
					parts[j] = rec.Column(j).ValueStr(i)
				}
				return strings.Join(parts, "-")
			}
			err = fn(keys[i], show)
		}
		rec.Release()
		if err != nil {
			return err
		}
	}
}
