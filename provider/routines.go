package provider

import (
	"fmt"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/sqlerr"
)

// Collections have no MySQL triggers, stored procedures or events. GMS
// asks every database for them (information_schema, INSERT planning), so
// the lists are empty and creating one is refused with the reason.
var (
	_ sql.TriggerDatabase         = (*Database)(nil)
	_ sql.StoredProcedureDatabase = (*Database)(nil)
	_ sql.EventDatabase           = (*Database)(nil)
)

func refuse(what, why string) error {
	return sqlerr.Wrap(fmt.Errorf("%w: %s (%s)", catalogstore.ErrNotSupported, what, why))
}

// GetTriggers implements sql.TriggerDatabase.
func (d *Database) GetTriggers(*sql.Context) ([]sql.TriggerDefinition, error) { return nil, nil }

// CreateTrigger implements sql.TriggerDatabase.
func (d *Database) CreateTrigger(*sql.Context, sql.TriggerDefinition) error {
	return refuse("CREATE TRIGGER", "MySQL triggers run per row inside a statement; lakesql's refresh triggers come with CREATE MATERIALIZED VIEW")
}

// DropTrigger implements sql.TriggerDatabase.
func (d *Database) DropTrigger(_ *sql.Context, name string) error {
	return sql.ErrTriggerDoesNotExist.New(name)
}

// GetStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) GetStoredProcedure(*sql.Context, string) (sql.StoredProcedureDetails, bool, error) {
	return sql.StoredProcedureDetails{}, false, nil
}

// GetStoredProcedures implements sql.StoredProcedureDatabase.
func (d *Database) GetStoredProcedures(*sql.Context) ([]sql.StoredProcedureDetails, error) {
	return nil, nil
}

// SaveStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) SaveStoredProcedure(*sql.Context, sql.StoredProcedureDetails) error {
	return refuse("CREATE PROCEDURE", "lakesql's procedures are built in: CALL expire_snapshots(...), CALL compact(...)")
}

// DropStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) DropStoredProcedure(_ *sql.Context, name string) error {
	return sql.ErrStoredProcedureDoesNotExist.New(name)
}

// GetEvent implements sql.EventDatabase.
func (d *Database) GetEvent(*sql.Context, string) (sql.EventDefinition, bool, error) {
	return sql.EventDefinition{}, false, nil
}

// GetEvents implements sql.EventDatabase.
func (d *Database) GetEvents(*sql.Context) ([]sql.EventDefinition, interface{}, error) {
	return nil, nil, nil
}

// SaveEvent implements sql.EventDatabase.
func (d *Database) SaveEvent(*sql.Context, sql.EventDefinition) (bool, error) {
	return false, refuse("CREATE EVENT", "schedule maintenance outside the server")
}

// DropEvent implements sql.EventDatabase.
func (d *Database) DropEvent(_ *sql.Context, name string) error {
	return sql.ErrEventDoesNotExist.New(name)
}

// UpdateEvent implements sql.EventDatabase.
func (d *Database) UpdateEvent(*sql.Context, string, sql.EventDefinition) (bool, error) {
	return false, refuse("ALTER EVENT", "lakesql stores no events")
}

// NeedsToReloadEvents implements sql.EventDatabase.
func (d *Database) NeedsToReloadEvents(*sql.Context, interface{}) (bool, error) { return false, nil }

// UpdateLastExecuted implements sql.EventDatabase.
func (d *Database) UpdateLastExecuted(*sql.Context, string, time.Time) error { return nil }
