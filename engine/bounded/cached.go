package bounded

import (
	"errors"
	"fmt"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/lakesql/lakesql/budget"
)

// buildCachedResults replaces GMS's build of a materialised subquery's
// cache (plan.CachedResults), charging what it caches. Past the budget it
// does what GMS does when its memory manager says no: it drops the cache
// and marks the node NoCache, so later uses run the child again (slower,
// within budget) and this one goes on streaming.
func (o *override) buildCachedResults(ctx *sql.Context, n *plan.CachedResults, row sql.Row) (sql.RowIter, error) {
	n.Mutex.Lock()
	defer n.Mutex.Unlock()
	if n.Disposed {
		return nil, fmt.Errorf("%w: %T", plan.ErrRowIterDisposed, n)
	}
	if n.GetCachedResults() != nil || n.NoCache || n.Finalized {
		return nil, nil // GMS serves the cache, or runs the child
	}
	child, err := o.base.Build(ctx, n.Child, row)
	if err != nil {
		return nil, err
	}
	cache, dispose := ctx.Memory.NewRowsCache()
	return &cachedIter{n: n, child: child, cache: cache, dispose: dispose, charge: budget.From(ctx).NewCharge("materialised subquery")}, nil
}

type cachedIter struct {
	n       *plan.CachedResults
	child   sql.RowIter
	cache   sql.RowsCache
	dispose sql.DisposeFunc
	charge  *budget.Charge
	rows    int
}

func (i *cachedIter) Next(ctx *sql.Context) (sql.Row, error) {
	if i.rows%checkEvery == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	i.rows++
	r, err := i.child.Next(ctx)
	if i.cache == nil {
		return r, err
	}
	switch {
	case errors.Is(err, io.EOF):
		if plan.CachedResultsGlobalCache.AddNewCache(i.n.Id, i.cache, i.dispose) {
			i.cache, i.dispose = nil, nil // the global cache owns it now
		}
		i.n.Finalized = true
		i.drop()
	case err != nil:
		i.drop()
		i.charge.Close()
	default:
		if cerr := i.charge.Grow(rowSize(r)); cerr != nil || i.cache.Add(r) != nil {
			i.stopCaching()
		}
	}
	return r, err
}

// stopCaching gives up the cache: the node runs its child on every use.
func (i *cachedIter) stopCaching() {
	i.drop()
	i.charge.Close()
	i.n.Mutex.Lock()
	i.n.NoCache = true
	i.n.Mutex.Unlock()
}

func (i *cachedIter) drop() {
	if i.dispose != nil {
		i.dispose()
	}
	i.cache, i.dispose = nil, nil
}

func (i *cachedIter) Close(ctx *sql.Context) error {
	i.drop()
	return i.child.Close(ctx)
}
