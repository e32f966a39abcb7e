// Package mysqlfix holds every correction lakesql makes to go-mysql-server
// v0.20.0 where it answers differently from MySQL 8: its own aggregate and
// function implementations, analyzer rules, result-schema fixes, error
// formatting and handler-level protocol fixes.
//
// GMS v0.20.0 is the newest version the module proxy serves, so these fixes
// cannot go upstream from here; keeping them in one package means each one
// is found, tested and (when GMS is upgraded) removed in one place. Each
// file names the MySQL behaviour it restores and the GMS behaviour it
// replaces.
package mysqlfix
