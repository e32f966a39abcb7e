package meta

import (
	"context"
	"time"
)

// TxTimeout bounds a metastore transaction once it has begun.
const TxTimeout = 2 * time.Minute

// Detached is the context a Store runs a transaction under once it has
// begun: ctx's values without its cancellation, bounded by TxTimeout. A
// statement cancelled while its transaction runs (KILL QUERY, a client
// gone) would otherwise leave the outcome unknown — the commit may apply
// after the caller was told it failed, so the client sees an error for a
// write that landed — and, on Firestore, leave the transaction open,
// holding its locks until it expires, stalling every writer of the same
// documents. A caller that is already cancelled does not begin one.
func Detached(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), TxTimeout)
	return dctx, cancel, nil
}
