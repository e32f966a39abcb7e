// Package local is the blob.Store over a folder: the embedded default.
//
// A key is a slash path relative to the root folder; "ws/coll/a.parquet" is
// the file <root>/ws/coll/a.parquet. Keys that are not clean relative paths
// ("..", absolute, empty segments) fail with blob.ErrBadKey, so no key
// reaches outside the root. Symbolic links inside the root are followed, not
// checked.
//
// Put writes to a temporary file in <root>/.tmp/, fsyncs it and then
// renames it into place (or, with IfNotExists, hard-links it, which fails if
// the target exists, so create-only is atomic across processes sharing the
// folder). Readers never see a partial object. The ".tmp" folder is never
// listed and keys under ".tmp/" are refused. A temporary file left behind by
// a killed writer is removed by the next Open once it is a day old.
//
// Unlike an object store, a folder cannot hold both "a" and "a/b": the
// second Put fails. Delete removes parent folders that become empty.
//
// The root must be on a file system with hard links (any local Linux,
// macOS or Windows NTFS disk).
package local
