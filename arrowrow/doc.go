// Package arrowrow is lakesql's one codec between GMS rows and Arrow
// records of a catalog schema. Builder stores rows as INSERT does (range
// checks, DECIMAL rounding to the column's scale, dates as days, times and
// timestamps in microseconds); FillColumn and Rows give back the Go values
// GMS expects for each catalog type. The write path (provider), the read
// path (scan) and plan nodes that hold rows in Arrow all use it, so a row
// written and read back is the row given (see the round-trip test).
//
// It sits at scan's level: it knows GMS's value types but nothing of the
// catalog's transactions (catalogstore/txn works on the Arrow records it
// builds).
package arrowrow
