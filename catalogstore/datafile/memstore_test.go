package datafile_test

import (
	"bytes"
	"context"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// memStore is an in-memory blob.Store; readAts counts ReadAt calls.
type memStore struct {
	mu      sync.Mutex
	objs    map[string][]byte
	readAts atomic.Int64
}

var _ blob.Store = (*memStore)(nil)

func newMemStore() *memStore { return &memStore{objs: map[string][]byte{}} }

func (m *memStore) Put(_ context.Context, key string, r io.Reader, opts blob.PutOptions) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objs[key]; ok && opts.IfNotExists {
		return blob.ErrExists
	}
	m.objs[key] = data
	return nil
}

func (m *memStore) object(key string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.objs[key]
	return d, ok
}

func (m *memStore) Get(_ context.Context, key string) ([]byte, error) {
	d, ok := m.object(key)
	if !ok {
		return nil, blob.ErrNotFound
	}
	return bytes.Clone(d), nil
}

func (m *memStore) ReadAt(_ context.Context, key string, p []byte, off int64) (int, error) {
	m.readAts.Add(1)
	d, ok := m.object(key)
	if !ok {
		return 0, blob.ErrNotFound
	}
	if off >= int64(len(d)) {
		return 0, io.EOF
	}
	n := copy(p, d[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (m *memStore) Stat(_ context.Context, key string) (blob.Info, error) {
	d, ok := m.object(key)
	if !ok {
		return blob.Info{}, blob.ErrNotFound
	}
	return blob.Info{Key: key, Size: int64(len(d))}, nil
}

func (m *memStore) List(_ context.Context, prefix string) ([]blob.Info, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []blob.Info
	for k, d := range m.objs {
		if strings.HasPrefix(k, prefix) {
			out = append(out, blob.Info{Key: k, Size: int64(len(d))})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

func (m *memStore) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objs, key)
	return nil
}

func (m *memStore) URI() string  { return "mem://datafile-test" }
func (m *memStore) Close() error { return nil }
