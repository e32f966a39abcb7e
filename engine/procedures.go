package engine

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/sqlerr"
)

// Built-in procedures (CALL name(args)) with positional arguments. Each
// family lives in a proc_*.go file with a function returning its
// procedures, listed in procedureSets; a procedure reaches the catalog and
// the caller through procEnv.
//
// GMS passes arguments converted to the Go types of the function's
// parameters (string, int64, bool, ...).
func procedureSets() [][]sql.ExternalStoredProcedureDetails {
	return [][]sql.ExternalStoredProcedureDetails{
		// Add a family here: historyProcedures(), maintenanceProcedures(), ...
		historyProcedures(),
		maintenanceProcedures(),
		integrityProcedures(),
		ingestProcedures(),
		exportProcedures(),
		icebergProcedures(),
	}
}

// procEnv is what a procedure needs: the session (author, workspace) and
// its catalog.
type procEnv struct {
	sess *Session
	cat  *catalogstore.Catalog
}

func envOf(ctx *sql.Context) (*procEnv, error) {
	s, ok := ctx.Session.(*Session)
	if !ok {
		return nil, fmt.Errorf("lakesql: procedures need a lakesql session, not %T", ctx.Session)
	}
	return &procEnv{sess: s, cat: s.e.cat}, nil
}

// tableEnv is envOf and table together: the start of every procedure on
// one dataset.
func tableEnv(ctx *sql.Context, name string) (*procEnv, *catalogstore.Dataset, error) {
	env, err := envOf(ctx)
	if err != nil {
		return nil, nil, err
	}
	ds, err := env.table(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	return env, ds, nil
}

// table resolves a procedure's 'c.t' or 'ws.c.t' argument.
func (p *procEnv) table(ctx *sql.Context, name string) (*catalogstore.Dataset, error) {
	id, err := catalogstore.ParseIdent(p.sess.CurrentWorkspace(), name)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	ds, err := p.cat.Dataset(ctx, id)
	return ds, sqlerr.Wrap(err)
}

func registerProcedures(e *Engine) {
	for _, set := range procedureSets() {
		e.prov.RegisterProcedures(set...)
	}
}
