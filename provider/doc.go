// Package provider adapts the lakesql catalog to go-mysql-server: a
// DatabaseProvider whose databases are the collections of the session's
// current workspace and whose tables are datasets and views.
//
// It translates between GMS and catalogstore and holds no catalog rules:
// names, guards, commits and their errors come from catalogstore. Writes
// are staged in the session's write transaction (WriteSet, a
// catalogstore/txn.Txn): the row editor (writes.go) only converts GMS rows
// to Arrow records (arrowrow) and hands them over; the engine's session
// commits at the end of each statement, or at COMMIT, one catalog commit
// per dataset.
//
// Files follow GMS's memory package: provider.go, database.go, table.go,
// writes.go, each with a var _ block of the interfaces it implements. The
// row editor's helpers: keyindex.go (the rows a primary key hits),
// staged.go (what the transaction staged, for reading one's own writes).
// Beside them, one concept a file: types.go and timezone.go (catalog
// column ↔ GMS type and value), stats.go, colstats.go and kmv.go
// (statistics for GMS's planner and lakesql's join coster), rewrite.go
// and pkalter.go (ALTERs that rewrite the data), asof.go (time travel),
// metatables.go and mvtables.go (metadata tables, a refresh's files),
// tablefunc.go (the change feed), filefunc.go, filesources.go,
// readparquet.go and readcsv.go (table functions over files), routines.go
// and procedures.go (what GMS asks every database for, CALL).
package provider
