package manifest

import (
	"bytes"
	"context"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// memStore is an in-memory blob.Store for tests. gets counts Get calls.
type memStore struct {
	mu   sync.Mutex
	objs map[string][]byte
	gets atomic.Int64
	// getHook, when set, runs inside Get before the object is read.
	getHook func()
}

var _ blob.Store = (*memStore)(nil)

func newMemStore() *memStore { return &memStore{objs: map[string][]byte{}} }

func (m *memStore) Put(ctx context.Context, key string, r io.Reader, opts blob.PutOptions) error {
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

func (m *memStore) Get(ctx context.Context, key string) ([]byte, error) {
	m.gets.Add(1)
	if m.getHook != nil {
		m.getHook()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.objs[key]
	if !ok {
		return nil, blob.ErrNotFound
	}
	return bytes.Clone(d), nil
}

func (m *memStore) ReadAt(ctx context.Context, key string, p []byte, off int64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.objs[key]
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

func (m *memStore) Stat(ctx context.Context, key string) (blob.Info, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.objs[key]
	if !ok {
		return blob.Info{}, blob.ErrNotFound
	}
	return blob.Info{Key: key, Size: int64(len(d)), ModTime: time.Unix(0, 0)}, nil
}

func (m *memStore) List(ctx context.Context, prefix string) ([]blob.Info, error) {
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

func (m *memStore) Delete(ctx context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objs, key)
	return nil
}

func (m *memStore) URI() string  { return "mem://test" }
func (m *memStore) Close() error { return nil }
