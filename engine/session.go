package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/ddl"
	"github.com/lakesql/lakesql/mysqlfix"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/sqlerr"
)

// Session is one client's session: GMS's base session plus the current
// workspace and the staged write-set. It implements sql.TransactionSession:
// CommitTransaction makes one catalog commit per dataset written, at the end
// of each statement under autocommit or at COMMIT.
type Session struct {
	*sql.BaseSession
	// e is the engine that runs the session's SQL (a refresh, the plan of
	// a materialized view's query) and holds its catalog.
	e      *Engine
	mu     sync.Mutex
	ws     string
	writes *provider.WriteSet
	// ctas is the table the running CREATE TABLE … AS SELECT created,
	// dropped if its commit is refused (ctas.go); nil otherwise.
	ctas *createdTable
	// resultSchema is the running statement's result schema, for the
	// wire's field metadata (mysqlfix.Results).
	resultSchema atomic.Pointer[sql.Schema]
	// refused notes that the running statement's only commit was refused
	// for re-preparation (rerun.go).
	refused bool
	// fileFunctions is set while a statement of file functions is planned
	// with no database selected (mysqlfix.FileFunctionScope).
	fileFunctions atomic.Bool
}

// fileFunctionDatabase is the database the binder is lent for a
// statement of file functions: one every catalog has and nobody writes.
const fileFunctionDatabase = "information_schema"

// ScopeFileFunctions implements mysqlfix.FileFunctionScope.
func (s *Session) ScopeFileFunctions(on bool) { s.fileFunctions.Store(on) }

// GetCurrentDatabase implements sql.Session: the selected database, or
// the stand-in while a statement of file functions is planned.
func (s *Session) GetCurrentDatabase() string {
	if db := s.BaseSession.GetCurrentDatabase(); db != "" || !s.fileFunctions.Load() {
		return db
	}
	return fileFunctionDatabase
}

// RecordResultSchema implements mysqlfix.ResultSchemaRecorder.
func (s *Session) RecordResultSchema(sch sql.Schema) { s.resultSchema.Store(&sch) }

// ResultSchema is the schema RecordResultSchema kept last, or nil.
func (s *Session) ResultSchema() sql.Schema {
	if p := s.resultSchema.Load(); p != nil {
		return *p
	}
	return nil
}

func (s *Session) setPendingCTAS(id *createdTable) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctas = id
}

// takePendingCTAS returns and clears the pending CTAS table.
func (s *Session) takePendingCTAS() *createdTable {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.ctas
	s.ctas = nil
	return id
}

var (
	_ sql.Session            = (*Session)(nil)
	_ sql.TransactionSession = (*Session)(nil)
	_ provider.Session       = (*Session)(nil)
	_ ddl.Session            = (*Session)(nil)

	_ sql.LifecycleAwareSession = (*Session)(nil)
)

func newSession(base *sql.BaseSession, e *Engine, ws string) *Session {
	return &Session{BaseSession: base, e: e, ws: ws, writes: provider.NewWriteSet()}
}

// Catalog implements ddl.Session.
func (s *Session) Catalog() *catalogstore.Catalog { return s.e.cat }

// CurrentWorkspace implements provider.Session and ddl.Session.
func (s *Session) CurrentWorkspace() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ws
}

// SetCurrentWorkspace implements ddl.Session: it switches workspace after
// checking it exists (never creating it). The current database is cleared,
// since it named a collection of the old workspace.
func (s *Session) SetCurrentWorkspace(ctx context.Context, ws string) error {
	if _, err := s.e.cat.Workspace(ctx, ws); err != nil {
		return err
	}
	s.mu.Lock()
	changed := s.ws != ws
	s.ws = ws
	s.mu.Unlock()
	if changed {
		s.BaseSession.SetCurrentDatabase("")
	}
	return nil
}

// Author implements provider.Session and ddl.Session: the authenticated
// user is the author of every commit.
func (s *Session) Author() string {
	if u := s.Client().User; u != "" {
		return u
	}
	return "root"
}

// CompactionMemory is the memory budget of the compactions the session
// runs (CALL compaction, OPTIMIZE TABLE): Config.CompactionMemory.
func (s *Session) CompactionMemory() int64 { return s.e.cfg.CompactionMemory }

// Writes implements provider.Session.
func (s *Session) Writes() *provider.WriteSet { return s.writes }

// SetCurrentDatabase accepts `ws.coll` (a DSN database naming another
// workspace): the session switches to ws and uses coll.
func (s *Session) SetCurrentDatabase(name string) {
	if i := strings.IndexByte(name, '.'); i > 0 {
		if err := s.SetCurrentWorkspace(context.Background(), name[:i]); err == nil {
			s.BaseSession.SetCurrentDatabase(name[i+1:])
			return
		}
	}
	s.BaseSession.SetCurrentDatabase(name)
}

// transaction is the opaque token GMS keeps for an open transaction.
type transaction struct{ readOnly bool }

func (t *transaction) String() string   { return "lakesql transaction" }
func (t *transaction) IsReadOnly() bool { return t.readOnly }

// StartTransaction implements sql.TransactionSession.
func (s *Session) StartTransaction(_ *sql.Context, c sql.TransactionCharacteristic) (sql.Transaction, error) {
	return &transaction{readOnly: c == sql.ReadOnly}, nil
}

// CommitTransaction implements sql.TransactionSession: the staged writes
// become catalog commits.
func (s *Session) CommitTransaction(ctx *sql.Context, tx sql.Transaction) error {
	ctas := s.takePendingCTAS()
	if s.writes.Empty() {
		return s.publish(ctx, ctas)
	}
	if t, ok := tx.(*transaction); ok && t.readOnly {
		s.writes.Rollback()
		return fmt.Errorf("%w: cannot write in a READ ONLY transaction", catalogstore.ErrNotSupported)
	}
	// One dataset under autocommit: the statement is the whole
	// transaction, so a refused commit leaves nothing of it.
	whole := s.writes.Len() == 1 && autocommitting(ctx)
	if err := s.writes.Commit(ctx, s.Author()); err != nil {
		if whole {
			s.NoteRefusedCommit(err)
		}
		if ctas != nil {
			dropCreated(ctx, s, *ctas)
		}
		// A refused COMMIT rolled the staged writes back; end the
		// transaction too, as MySQL does, so the next statement autocommits
		// instead of staging into a transaction the client thinks is over.
		ctx.SetIgnoreAutoCommit(false)
		ctx.SetTransaction(nil)
		return sqlerr.Wrap(err)
	}
	return s.publish(ctx, ctas)
}

// publish publishes the table the committed CTAS created, if any.
func (s *Session) publish(ctx *sql.Context, ctas *createdTable) error {
	if ctas == nil {
		return nil
	}
	return sqlerr.Wrap(publishCreated(ctx, s, *ctas))
}

// Rollback implements sql.TransactionSession.
func (s *Session) Rollback(*sql.Context, sql.Transaction) error {
	s.writes.Rollback()
	return nil
}

// CreateSavepoint implements sql.TransactionSession.
func (s *Session) CreateSavepoint(*sql.Context, sql.Transaction, string) error {
	return fmt.Errorf("%w: savepoints", catalogstore.ErrNotSupported)
}

// RollbackToSavepoint implements sql.TransactionSession.
func (s *Session) RollbackToSavepoint(*sql.Context, sql.Transaction, string) error {
	return fmt.Errorf("%w: savepoints", catalogstore.ErrNotSupported)
}

// ReleaseSavepoint implements sql.TransactionSession.
func (s *Session) ReleaseSavepoint(*sql.Context, sql.Transaction, string) error {
	return fmt.Errorf("%w: savepoints", catalogstore.ErrNotSupported)
}

// SetSessionVariable switches workspace for SET lakehouse_workspace, and
// refuses a time_zone MySQL would not know (1298): TIMESTAMP reads and
// writes convert through the session's zone (mysqlfix/timezone.go).
func (s *Session) SetSessionVariable(ctx *sql.Context, name string, value any) error {
	if strings.EqualFold(name, "time_zone") {
		if tz, ok := value.(string); ok {
			if _, err := mysqlfix.ParseTimeZone(tz); err != nil {
				return sqlerr.Wrap(err)
			}
		}
	}
	if strings.EqualFold(name, SysVarWorkspace) {
		ws, ok := value.(string)
		if !ok {
			return fmt.Errorf("%w: %s takes a workspace name", catalogstore.ErrBadValue, SysVarWorkspace)
		}
		if err := s.SetCurrentWorkspace(ctx, ws); err != nil {
			return sqlerr.Wrap(err) // 1049, as USE of an unknown database
		}
	}
	return s.BaseSession.SetSessionVariable(ctx, name, value)
}

// GetSessionVariable answers lakehouse_workspace from the session.
func (s *Session) GetSessionVariable(ctx *sql.Context, name string) (any, error) {
	if strings.EqualFold(name, SysVarWorkspace) {
		return s.CurrentWorkspace(), nil
	}
	return s.BaseSession.GetSessionVariable(ctx, name)
}
