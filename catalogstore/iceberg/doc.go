// Package iceberg writes Apache Iceberg v2 metadata for lakesql datasets,
// so engines that read Iceberg (Trino, Spark, DuckDB, BigQuery, Snowflake,
// pyiceberg, iceberg-go) read the same tables without a copy: the metadata
// points at lakesql's own Parquet data files, which already carry Parquet
// field ids and Iceberg single-value bounds.
//
// # Layout
//
// Under the dataset's location, in iceberg/metadata/ (the table root is
// {location}/iceberg, in the Hadoop-catalog layout file-system readers
// expect; the data files stay where lakesql wrote them):
//
//	snap-{snapshot-id}.avro      the manifest list of one snapshot
//	m-{writer}-{added}-{spec}-{nonce}.avro
//	                             a manifest: the files one snapshot added under one spec
//	v{N}.metadata.json           table metadata, one per exported table state
//	version-hint.text            N, for file-system readers (Hadoop catalog, DuckDB, icebird)
//
// Manifest lists and manifests are immutable: written once per snapshot,
// create-only. A snapshot reuses its parent's manifest of every group of
// files (same adding snapshot, same spec) that did not change, so an
// append writes one manifest and one list whatever the table's size. It
// also reads little: the export of an append to an exported parent decodes
// only the lakesql manifest entries the append added (the row groups
// holding them) instead of comparing both snapshots' whole manifests, which
// other operations (deletes, overwrites, compaction) still do. A
// new v{N+1}.metadata.json is written only when the table's state differs
// from v{N}'s (a commit, a tag, a schema or spec change), after every
// file it references; version-hint.text is moved last. A reader never
// sees metadata that references a missing file.
//
// # Mapping
//
// lakesql snapshots are Iceberg snapshots with the same id, parent,
// sequence number, timestamp and schema id; expired snapshots are left
// out. Tags are refs of type "tag", the head is the "main" branch. The
// operation is "replace" for compaction and statistics refreshes, else
// "append" (files only added), "delete" (only removed) or "overwrite"
// (both: copy-on-write DELETE and UPDATE, overwrites, rollbacks); the
// removed files are DELETED entries of that snapshot's manifests.
// Partition specs (lakesql's transforms are Iceberg's) and their evolution
// map one to one, with partition field ids from 1000. Schemas keep their
// field ids; every field is optional, since a column added later reads as
// NULL in older files. A name mapping (schema.name-mapping.default) lists
// every name each field id has had, for files registered without field
// ids.
//
// Types, by what lakesql's Parquet files store:
//
//	lakesql            Parquet (as written)             Iceberg
//	boolean            BOOLEAN                          boolean
//	int8, int16        INT32 (INT(8|16, signed))        int
//	int32              INT32                            int
//	uint8, uint16      INT32 (INT(8|16, unsigned))      int (every value fits)
//	int64              INT64                            long
//	uint32             INT32 (INT(32, unsigned))        refused: readers sign-extend values >= 2^31
//	uint64             INT64 (INT(64, unsigned))        refused: no Iceberg type holds 2^63..2^64-1
//	float32, float64   FLOAT, DOUBLE                    float, double
//	decimal(P,S)       INT32 (P<=9), INT64 (P<=18),     decimal(P,S)
//	                   FIXED_LEN_BYTE_ARRAY (P>18)
//	string, json       BYTE_ARRAY (UTF8)                string
//	binary             BYTE_ARRAY                       binary
//	date               INT32 (DATE)                     date
//	time               INT64 (TIME(MICROS))             time
//	timestamp          INT64 (TIMESTAMP(MICROS, UTC))   timestamptz
//
// A refused type fails the export with ErrNoIcebergType, naming the
// column, before anything is written.
//
// Column statistics are copied from lakesql's manifest: value, null and
// NaN counts, column sizes, and bounds re-encoded in the column's current
// Iceberg type (a bound written before a column was widened is stored in
// the wider encoding). Files whose statistics are pending or failed carry
// none, and inexact bounds are left out, so a reader never prunes a file
// holding matching rows.
package iceberg
