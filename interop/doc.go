// Package interop proves lakesql's tables readable by engines lakesql did
// not write. It is its own module so that those readers (iceberg-go and
// its dependencies) never enter lakesql's main module or binary: only its
// tests import them.
package interop
