package provider

import (
	"github.com/dolthub/go-mysql-server/sql"
)

var _ sql.ExternalStoredProcedureProvider = (*Provider)(nil)

// RegisterProcedures adds built-in procedures (CALL name(...)). Call it
// before the provider serves queries.
func (p *Provider) RegisterProcedures(procs ...sql.ExternalStoredProcedureDetails) {
	for _, sp := range procs {
		p.procs.Register(sp)
	}
}

// ExternalStoredProcedure implements sql.ExternalStoredProcedureProvider.
func (p *Provider) ExternalStoredProcedure(_ *sql.Context, name string, numOfParams int) (*sql.ExternalStoredProcedureDetails, error) {
	return p.procs.LookupByNameAndParamCount(name, numOfParams)
}

// ExternalStoredProcedures implements sql.ExternalStoredProcedureProvider.
func (p *Provider) ExternalStoredProcedures(_ *sql.Context, name string) ([]sql.ExternalStoredProcedureDetails, error) {
	return p.procs.LookupByName(name)
}
