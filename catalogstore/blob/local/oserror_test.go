//go:build linux

package local

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

func TestWriteError_Classified(t *testing.T) {
	for _, c := range []struct {
		errno syscall.Errno
		want  error
	}{
		{syscall.ENOSPC, blob.ErrNoSpace},
		{syscall.EDQUOT, blob.ErrNoSpace},
		{syscall.EROFS, blob.ErrReadOnly},
		{syscall.EACCES, blob.ErrReadOnly},
	} {
		err := writeError(&fs.PathError{Op: "write", Path: "/lake/.tmp/put-ABCDEF", Err: c.errno})
		if !errors.Is(err, c.want) || strings.Contains(err.Error(), ".tmp") || !strings.Contains(err.Error(), c.errno.Error()) {
			t.Errorf("%v: %v, want %v with the reason and without the temporary path", c.errno, err, c.want)
		}
	}
	if err := writeError(&fs.PathError{Op: "write", Path: "/lake/.tmp/put-X", Err: syscall.EIO}); errors.Is(err, blob.ErrNoSpace) || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("EIO: %v", err)
	}
}

// TestPut_FullAndReadOnlyFileSystem: on a real full, then read-only, file
// system (a small tmpfs; needs mount privileges, skipped without), Put
// fails with ErrNoSpace, then ErrReadOnly, naming the key and not the
// store's temporary file, and leaves no object behind.
func TestPut_FullAndReadOnlyFileSystem(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	err = s.Put(ctx, "ws/c/t/data/big.parquet", bytes.NewReader(make([]byte, 1<<20)), blob.PutOptions{IfNotExists: true})
	if !errors.Is(err, blob.ErrNoSpace) || strings.Contains(err.Error(), ".tmp") || strings.Contains(err.Error(), "put-") || !strings.Contains(err.Error(), "ws/c/t/data/big.parquet") {
		t.Fatalf("Put on a full file system = %v", err)
	}
	if _, err := s.Stat(ctx, "ws/c/t/data/big.parquet"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("a failed Put left an object: %v", err)
	}
	if entries, _ := os.ReadDir(s.tmp); len(entries) != 0 {
		t.Fatalf("a failed Put left temporary files: %v", entries)
	}
	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot remount read-only: %v %s", err, out)
	}
	err = s.Put(ctx, "ws/c/t/data/small.parquet", bytes.NewReader([]byte("x")), blob.PutOptions{IfNotExists: true})
	if !errors.Is(err, blob.ErrReadOnly) || strings.Contains(err.Error(), ".tmp") {
		t.Fatalf("Put on a read-only file system = %v", err)
	}
}
