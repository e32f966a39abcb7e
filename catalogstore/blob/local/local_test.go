package local_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
)

func open(t *testing.T, root string) *local.Store {
	t.Helper()
	s, err := local.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func put(t *testing.T, s *local.Store, key, data string) {
	t.Helper()
	if err := s.Put(t.Context(), key, strings.NewReader(data), blob.PutOptions{}); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

// files lists every file and folder under root, slash-separated, sorted.
func files(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func TestOpen_CreatesMissingRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "no", "such", "lake")
	s := open(t, root)
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		t.Fatalf("root not created: %v", err)
	}
	put(t, s, "k", "v")
	if got, err := os.ReadFile(filepath.Join(root, "k")); err != nil || string(got) != "v" {
		t.Fatalf("file at root/k = %q, %v", got, err)
	}
}

func TestOpen_RootIsAFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := local.Open(f); err == nil {
		t.Fatal("Open of a file succeeded")
	}
	if _, err := local.Open(""); !errors.Is(err, blob.ErrBadURI) {
		t.Fatalf("Open(\"\") error = %v, want ErrBadURI", err)
	}
}

func TestURI_IsAbsolute(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	s := open(t, "lake")
	want := "file://" + filepath.ToSlash(filepath.Join(dir, "lake"))
	if got := s.URI(); got != want {
		t.Fatalf("URI() = %q, want %q", got, want)
	}
}

func TestPut_LeavesOnlyTheObject(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	put(t, s, "ws/coll/data/1.parquet", "x")
	if err := s.Put(t.Context(), "ws/coll/m.json", strings.NewReader("m"), blob.PutOptions{IfNotExists: true}); err != nil {
		t.Fatal(err)
	}
	want := []string{"./", ".tmp/", "ws/", "ws/coll/", "ws/coll/data/", "ws/coll/data/1.parquet", "ws/coll/m.json"}
	if got := files(t, root); !slices.Equal(got, want) {
		t.Fatalf("files = %q, want %q (temporary files must be gone)", got, want)
	}
}

// TestKilledWriter_TempNotVisible plays a writer killed between writing its
// temporary file and renaming it: the object does not exist, List shows
// nothing, and a later Open clears the leftover once it is stale.
func TestKilledWriter_TempNotVisible(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	stale := filepath.Join(root, ".tmp", "put-stale")
	fresh := filepath.Join(root, ".tmp", "put-fresh")
	for _, f := range []string{stale, fresh} {
		if err := os.WriteFile(f, []byte("half a manifest"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if infos, err := s.List(t.Context(), ""); err != nil || len(infos) != 0 {
		t.Fatalf("List = %+v, %v; want nothing", infos, err)
	}
	if infos, err := s.List(t.Context(), ".tm"); err != nil || len(infos) != 0 {
		t.Fatalf("List(.tm) = %+v, %v; want nothing", infos, err)
	}
	if _, err := s.Get(t.Context(), ".tmp/put-fresh"); !errors.Is(err, blob.ErrBadKey) {
		t.Fatalf("Get(.tmp/...) error = %v, want ErrBadKey", err)
	}
	open(t, root) // a later process
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("stale temporary file survived Open: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatalf("fresh temporary file (maybe a live writer's) was removed: %v", err)
	}
}

func TestPut_RecreatesRemovedTmpFolder(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	if err := os.RemoveAll(filepath.Join(root, ".tmp")); err != nil {
		t.Fatal(err)
	}
	put(t, s, "k", "v")
	if got, err := s.Get(t.Context(), "k"); err != nil || string(got) != "v" {
		t.Fatalf("Get = %q, %v", got, err)
	}
}

func TestDelete_PrunesEmptyFolders(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	put(t, s, "a/b/c/1", "1")
	put(t, s, "a/2", "2")
	if err := s.Delete(t.Context(), "a/b/c/1"); err != nil {
		t.Fatal(err)
	}
	if got, want := files(t, root), []string{"./", ".tmp/", "a/", "a/2"}; !slices.Equal(got, want) {
		t.Fatalf("after first Delete files = %q, want %q", got, want)
	}
	if err := s.Delete(t.Context(), "a/2"); err != nil {
		t.Fatal(err)
	}
	if got, want := files(t, root), []string{"./", ".tmp/"}; !slices.Equal(got, want) {
		t.Fatalf("after second Delete files = %q, want %q (root must stay)", got, want)
	}
}

func TestDelete_FolderIsNotAnObject(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	if err := os.MkdirAll(filepath.Join(root, "empty", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(t.Context(), "empty/dir"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "empty", "dir")); err != nil {
		t.Fatalf("Delete removed a folder: %v", err)
	}
}

func TestPut_FileAndFolderOfOneName(t *testing.T) {
	s := open(t, t.TempDir())
	put(t, s, "a/b", "file")
	if err := s.Put(t.Context(), "a/b/c", strings.NewReader("x"), blob.PutOptions{}); err == nil {
		t.Fatal("Put under a file succeeded")
	}
	put(t, s, "d/e/f", "x")
	err := s.Put(t.Context(), "d/e", strings.NewReader("x"), blob.PutOptions{IfNotExists: true})
	if err == nil || errors.Is(err, blob.ErrExists) {
		t.Fatalf("create-only Put over a folder: %v, want an error that is not ErrExists", err)
	}
}

func TestLocalPath(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	put(t, s, "x/y.parquet", "data")
	p := s.LocalPath("x/y.parquet")
	if p != filepath.Join(root, "x", "y.parquet") {
		t.Fatalf("LocalPath = %q", p)
	}
	if got, err := os.ReadFile(p); err != nil || string(got) != "data" {
		t.Fatalf("ReadFile(LocalPath) = %q, %v", got, err)
	}
	for _, bad := range []string{"../x", "/etc/passwd", ".tmp/x"} {
		if p := s.LocalPath(bad); p != "" {
			t.Errorf("LocalPath(%q) = %q, want \"\"", bad, p)
		}
	}
}

func TestKeys_EscapeRefused(t *testing.T) {
	parent := t.TempDir()
	s := open(t, filepath.Join(parent, "lake"))
	for _, key := range []string{"../outside", "a/../../outside", "/tmp/outside"} {
		err := s.Put(t.Context(), key, strings.NewReader("x"), blob.PutOptions{})
		if !errors.Is(err, blob.ErrBadKey) || !strings.Contains(err.Error(), key) {
			t.Errorf("Put(%q) error = %v, want ErrBadKey naming the key", key, err)
		}
	}
	if got := files(t, parent); !slices.Equal(got, []string{"./", "lake/", "lake/.tmp/"}) {
		t.Fatalf("files = %q: something escaped", got)
	}
}

// TestIfNotExists_AcrossProcesses races create-only Puts from separate
// processes sharing one folder: exactly one creates the object.
func TestIfNotExists_AcrossProcesses(t *testing.T) {
	if root := os.Getenv("LAKESQL_LOCAL_HELPER_ROOT"); root != "" {
		helperPut(root, os.Getenv("LAKESQL_LOCAL_HELPER_ID"))
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	root := t.TempDir()
	const procs = 8
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*bytes.Buffer, procs)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestIfNotExists_AcrossProcesses$")
		cmds[i].Env = append(os.Environ(), "LAKESQL_LOCAL_HELPER_ROOT="+root, fmt.Sprintf("LAKESQL_LOCAL_HELPER_ID=%d", i))
		outs[i] = new(bytes.Buffer)
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	wins := 0
	winner := ""
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("helper %d: %v\n%s", i, err, outs[i])
		}
		out := outs[i].String()
		switch {
		case strings.Contains(out, "RESULT created"):
			wins++
			winner = fmt.Sprintf("writer %d", i)
		case strings.Contains(out, "RESULT exists"):
		default:
			t.Fatalf("helper %d printed no result:\n%s", i, out)
		}
	}
	if wins != 1 {
		t.Fatalf("%d processes created the object, want exactly 1", wins)
	}
	got, err := open(t, root).Get(t.Context(), "commit/manifest")
	if err != nil || string(got) != winner {
		t.Fatalf("object = %q, %v; want %q", got, err, winner)
	}
}

func helperPut(root, id string) {
	s, err := local.Open(root)
	if err != nil {
		fmt.Println("RESULT error", err)
		return
	}
	// Start together: wait for a moment all helpers have likely reached.
	time.Sleep(time.Until(time.Now().Truncate(100 * time.Millisecond).Add(200 * time.Millisecond)))
	err = s.Put(context.Background(), "commit/manifest", strings.NewReader("writer "+id), blob.PutOptions{IfNotExists: true})
	switch {
	case err == nil:
		fmt.Println("RESULT created")
	case errors.Is(err, blob.ErrExists):
		fmt.Println("RESULT exists")
	default:
		fmt.Println("RESULT error", err)
	}
}

// TestPut_RacesFolderPruning makes Puts create, and Deletes prune, the same
// deep folders at once: a create-only Put of an absent key must never
// report ErrExists, nor any other error.
func TestPut_RacesFolderPruning(t *testing.T) {
	s := open(t, t.TempDir())
	const workers, iters = 16, 200
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			key := fmt.Sprintf("d1/d2/d3/%d", w)
			for range iters {
				if err := s.Put(t.Context(), key, strings.NewReader("x"), blob.PutOptions{IfNotExists: true}); err != nil {
					errs <- fmt.Errorf("worker %d: %w", w, err)
					return
				}
				if err := s.Delete(t.Context(), key); err != nil {
					errs <- fmt.Errorf("worker %d: %w", w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
