package catalogstore_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/process"
)

// deadProcess is the identity of a process of this machine that has
// exited.
func deadProcess(t *testing.T) process.Identity {
	t.Helper()
	here := process.This()
	if here.BootID == "" || here.PIDNS == "" {
		t.Skip("no /proc: no creator is ever presumed gone here")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := here
	dead.PID, dead.StartTime = cmd.ProcessState.Pid(), ""
	return dead
}

// TestCreateDataset_AbandonedCreation (issue 18, atomic CTAS): a table
// created for CREATE TABLE … AS SELECT is seen while its creator lives;
// once the creator is gone before the rows committed it is not (Dataset,
// ListDatasets), its name takes a new table, and that creation purges the
// abandoned one's data files. A commit of the creator's rows publishes
// the table.
func TestCreateDataset_AbandonedCreation(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		e.dataset(t, "c", "other")
		id := e.id("c", "t")
		ds, err := e.cat.CreateDataset(catalogstore.WithCreating(ctx), id, testSchema, "a", catalogstore.CreateDatasetOptions{})
		if err != nil || ds.Creating == nil {
			t.Fatalf("create for a CTAS = %+v, %v; want it marked", ds, err)
		}
		if _, err := e.cat.Dataset(ctx, id); err != nil {
			t.Fatalf("its creator lives, the table is seen: %v", err)
		}
		// The creator dies before its rows commit, with a data file written.
		data, err := meta.Encode(struct {
			P process.Identity `json:"creating-process"`
		}{deadProcess(t)})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.m.Merge(ctx, meta.Join(e.ws, "c", "datasets", "t"), data); err != nil {
			t.Fatal(err)
		}
		file := ds.Location + "/data/abandoned.parquet"
		if err := e.b.Put(ctx, file, strings.NewReader("x"), blob.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.Dataset(ctx, id); !errors.Is(err, catalogstore.ErrDatasetNotFound) {
			t.Fatalf("abandoned creation seen: %v", err)
		}
		if l, err := e.cat.ListDatasets(ctx, e.ws, "c"); err != nil || len(l) != 1 || l[0].Name != "other" {
			t.Fatalf("ListDatasets = %v, %v; want only other", l, err)
		}
		fresh, err := e.cat.CreateDataset(ctx, id, testSchema, "a", catalogstore.CreateDatasetOptions{})
		if err != nil || fresh.Creating != nil || fresh.UUID == ds.UUID {
			t.Fatalf("the name takes a new table: %+v, %v", fresh, err)
		}
		if left, err := e.b.List(ctx, ds.Location+"/"); err != nil || len(left) != 0 {
			t.Fatalf("abandoned data files left: %v, %v", left, err)
		}

		// A creation whose rows commit is published with them.
		id2 := e.id("c", "u")
		ds2, err := e.cat.CreateDataset(catalogstore.WithCreating(ctx), id2, testSchema, "a", catalogstore.CreateDatasetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.Commit(ctx, id2, catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "a", ExpectedUUID: ds2.UUID, Added: []manifest.DataFile{fakeFile(ds2, 1, 5)}}); err != nil {
			t.Fatal(err)
		}
		if cur, err := e.cat.Dataset(ctx, id2); err != nil || cur.Creating != nil {
			t.Fatalf("committed creation still marked: %+v, %v", cur, err)
		}
	})
}
