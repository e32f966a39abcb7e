package scan

import (
	"container/list"
	"sync"

	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/partition"
)

// DefaultPrunerBytes is the default budget of columnar bounds a Pruner
// keeps: about 40 bytes a file and column, so 64 MiB holds a 100,000-file
// manifest's bounds on 16 columns.
const DefaultPrunerBytes = 64 << 20

// Pruner prunes manifests' files through their columnar Bounds, kept by
// manifest key (its path: manifests are immutable, so an entry never goes
// stale) and evicted least recently used first within a byte budget. The
// first plan of a manifest builds the columns its predicates need; later
// plans reuse them. Safe for concurrent use.
type Pruner struct {
	max int64

	mu    sync.Mutex
	size  int64
	order *list.List // of *prunerEntry, most recent at the front
	byKey map[string]*list.Element
}

type prunerEntry struct {
	key    string
	bounds *Bounds
	size   int64 // as last accounted
}

// NewPruner returns a pruner keeping about maxBytes of bounds.
func NewPruner(maxBytes int64) *Pruner {
	return &Pruner{max: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

// Prune is Prune(files, specs, preds) for the manifest at key, whose
// decoded entries files are.
func (p *Pruner) Prune(key string, files []manifest.DataFile, specs []partition.Spec, preds []Predicate) []manifest.DataFile {
	if len(preds) == 0 {
		return files
	}
	b := p.bounds(key, len(files))
	out := b.Prune(files, specs, preds)
	p.account(key, b)
	return out
}

// For returns p's Prune bound to the manifest at key.
func (p *Pruner) For(key string) PruneFunc {
	return func(files []manifest.DataFile, specs []partition.Spec, preds []Predicate) []manifest.DataFile {
		return p.Prune(key, files, specs, preds)
	}
}

// Len returns the number of manifests whose bounds are kept.
func (p *Pruner) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.order.Len()
}

// Size returns the bytes of bounds kept.
func (p *Pruner) Size() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.size
}

func (p *Pruner) bounds(key string, n int) *Bounds {
	p.mu.Lock()
	defer p.mu.Unlock()
	if el, ok := p.byKey[key]; ok {
		e := el.Value.(*prunerEntry)
		if e.bounds.n == n {
			p.order.MoveToFront(el)
			return e.bounds
		}
		// Not the manifest it was built for (a caller's bug): start over.
		p.remove(el)
	}
	e := &prunerEntry{key: key, bounds: NewBounds(n)}
	p.byKey[key] = p.order.PushFront(e)
	return e.bounds
}

// account brings the entry's size up to date after a prune may have built
// columns, and evicts to the budget. Bounds larger than a quarter of the
// budget are not kept (one manifest must not flush all others).
func (p *Pruner) account(key string, b *Bounds) {
	sz := b.Size()
	p.mu.Lock()
	defer p.mu.Unlock()
	el, ok := p.byKey[key]
	if !ok || el.Value.(*prunerEntry).bounds != b {
		return // evicted meanwhile
	}
	e := el.Value.(*prunerEntry)
	p.size += sz - e.size
	e.size = sz
	if sz > p.max/4 {
		p.remove(el)
	}
	for p.size > p.max && p.order.Len() > 0 {
		p.remove(p.order.Back())
	}
}

func (p *Pruner) remove(el *list.Element) {
	e := el.Value.(*prunerEntry)
	p.order.Remove(el)
	delete(p.byKey, e.key)
	p.size -= e.size
}
