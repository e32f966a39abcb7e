package engine

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// usersDoc holds GMS's user database (the mysql schema: users, grants),
// serialised by GMS, in the metastore. "$system" cannot be a workspace
// name, so the document never collides with a workspace.
const usersDoc = "$system/mysql-users"

// metaPersister persists GMS's user database into the metastore, so every
// replica sharing the metastore sees CREATE USER and GRANT.
type metaPersister struct{ m meta.Store }

func (p metaPersister) Persist(ctx *sql.Context, data []byte) error {
	// The write must land whatever happens to the statement's context now:
	// GMS has already applied the change in memory.
	return p.m.Set(context.WithoutCancel(ctx), usersDoc, map[string]any{"data": base64.StdEncoding.EncodeToString(data)})
}

// setupUsers loads persisted users and decides who may connect: without
// Auth, root without a password (the embedded default, which serves on
// loopback only); with Auth, the persisted users, bootstrapped with root
// and Config.RootPassword (LAKESQL_ROOT_PASSWORD) the first time.
func setupUsers(ctx context.Context, gms *sqle.Engine, m meta.Store, auth bool, rootPassword string) error {
	db := gms.Analyzer.Catalog.MySQLDb
	sctx := sql.NewContext(ctx)
	doc, err := m.Get(ctx, usersDoc)
	switch {
	case errors.Is(err, meta.ErrNotFound):
	case err != nil:
		return fmt.Errorf("load users: %w", err)
	default:
		s, _ := doc.Data["data"].(string)
		buf, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return fmt.Errorf("load users: %w", err)
		}
		if err := db.LoadData(sctx, buf); err != nil {
			return fmt.Errorf("load users: %w", err)
		}
	}
	db.SetPersister(metaPersister{m: m})
	if !auth {
		db.AddRootAccount()
		return nil
	}
	db.SetEnabled(true)
	rd := db.Reader()
	hasUsers := false
	rd.VisitUsers(func(*mysql_db.User) { hasUsers = true })
	rd.Close() // before the editor, which takes the write lock
	if hasUsers {
		return nil
	}
	pw := rootPassword
	if pw == "" {
		return errors.New("auth is on and the metastore has no users: set LAKESQL_ROOT_PASSWORD to create root")
	}
	ed := db.Editor()
	defer ed.Close()
	db.AddSuperUser(ed, "root", "%", pw)
	return db.Persist(sctx, ed)
}
