package scan

import (
	"context"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore/blob/local"
)

// TestRowIter_ReadAheadIsBounded: the parallel iterator decodes at most
// Parallelism files its consumer has not taken. With two readers and a
// consumer still on the first file, files 1 and 2 are decoded and then
// nothing more — not all twelve files of the table, whose rows no budget
// charges.
func TestRowIter_ReadAheadIsBounded(t *testing.T) {
	base, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := writeTopNFiles(t, base, "t", 12, 300, 50, false)
	store := &countingStore{Store: base, read: map[string]bool{}}
	ri := NewRowIter(context.Background(), Request{Store: store, Files: files, Schema: topNSchema, FieldIDs: []int{1, 2, 3, 4}, Parallelism: 2})
	ctx := sql.NewEmptyContext()
	if _, err := ri.Next(ctx); err != nil {
		t.Fatal(err)
	}
	it := ri.(*rowIter)
	// Wait for files 1 and 2 to be decoded (the deadline only keeps a
	// broken iterator from hanging the test; no time is asserted).
	for deadline := time.Now().Add(time.Minute); len(it.results[1]) == 0 || len(it.results[2]) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("files 1 and 2 were not decoded ahead")
		}
		time.Sleep(time.Millisecond)
	}
	if err := ri.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := store.files(); n != 3 {
		t.Errorf("%d files read with the consumer on the first; want 3 (it and two ahead)", n)
	}
}
