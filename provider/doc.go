// Package provider adapts the lakesql catalog to go-mysql-server: a
// DatabaseProvider whose databases are the collections of the session's
// current workspace and whose tables are datasets and views.
//
// It translates between GMS and catalogstore and holds no catalog rules:
// names, guards, commits and their errors come from catalogstore. Writes
// are staged in the session (WriteSet) and committed by the engine's
// session at the end of each statement, or at COMMIT, as one catalog commit
// per dataset.
//
// Files follow GMS's memory package: provider.go, database.go, table.go,
// writes.go, each with a var _ block of the interfaces it implements.
package provider
