package provider

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
)

// Session is what the provider needs from the engine's session.
type Session interface {
	// CurrentWorkspace names the workspace whose collections are the
	// session's databases.
	CurrentWorkspace() string
	// Author is the authenticated user, the author of every commit.
	Author() string
	// Writes is the session's staged write-set.
	Writes() *WriteSet
}

func sessionOf(ctx *sql.Context) (Session, error) {
	if ctx == nil || ctx.Session == nil {
		return nil, fmt.Errorf("lakesql: no session in context")
	}
	s, ok := ctx.Session.(Session)
	if !ok {
		return nil, fmt.Errorf("lakesql: session %T is not a lakesql session", ctx.Session)
	}
	return s, nil
}

// refusalNoter is the optional session method through which a statement
// that commits by itself (an ALTER's rewrite) reports a refused commit, so
// the engine can run the statement again against the new head.
type refusalNoter interface{ NoteRefusedCommit(error) }

// noteRefused reports err, if any, to the session.
func noteRefused(ctx *sql.Context, err error) {
	if n, ok := ctx.Session.(refusalNoter); ok && err != nil {
		n.NoteRefusedCommit(err)
	}
}
