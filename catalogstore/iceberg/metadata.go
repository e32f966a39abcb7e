package iceberg

import (
	"encoding/json"
	"strconv"

	"github.com/lakesql/lakesql/catalogstore"
)

// metadata is a v2 table metadata file (metadata.json).
type metadata struct {
	FormatVersion      int                `json:"format-version"`
	TableUUID          string             `json:"table-uuid"`
	Location           string             `json:"location"`
	LastSequenceNumber int64              `json:"last-sequence-number"`
	LastUpdatedMS      int64              `json:"last-updated-ms"`
	LastColumnID       int                `json:"last-column-id"`
	CurrentSchemaID    int                `json:"current-schema-id"`
	Schemas            []icebergSchema    `json:"schemas"`
	DefaultSpecID      int                `json:"default-spec-id"`
	PartitionSpecs     []specJSON         `json:"partition-specs"`
	LastPartitionID    int                `json:"last-partition-id"`
	DefaultSortOrderID int                `json:"default-sort-order-id"`
	SortOrders         []sortOrder        `json:"sort-orders"`
	Properties         map[string]string  `json:"properties"`
	CurrentSnapshotID  int64              `json:"current-snapshot-id"` // -1: none
	Snapshots          []snapshotJSON     `json:"snapshots"`
	SnapshotLog        []snapshotLogEntry `json:"snapshot-log"`
	MetadataLog        []metadataLogEntry `json:"metadata-log"`
	Refs               map[string]ref     `json:"refs"`
}

type sortOrder struct {
	OrderID int   `json:"order-id"`
	Fields  []any `json:"fields"`
}

type snapshotJSON struct {
	SnapshotID       int64             `json:"snapshot-id"`
	ParentSnapshotID *int64            `json:"parent-snapshot-id,omitempty"`
	SequenceNumber   int64             `json:"sequence-number"`
	TimestampMS      int64             `json:"timestamp-ms"`
	ManifestList     string            `json:"manifest-list"`
	Summary          map[string]string `json:"summary"`
	SchemaID         int               `json:"schema-id"`
}

type snapshotLogEntry struct {
	TimestampMS int64 `json:"timestamp-ms"`
	SnapshotID  int64 `json:"snapshot-id"`
}

type metadataLogEntry struct {
	TimestampMS  int64  `json:"timestamp-ms"`
	MetadataFile string `json:"metadata-file"`
}

type ref struct {
	SnapshotID int64  `json:"snapshot-id"`
	Type       string `json:"type"` // "branch" or "tag"
}

// operation maps a lakesql snapshot to Iceberg's operation: compaction and
// statistics refreshes change no data ("replace"); otherwise what the
// snapshot did to the files decides: only added files is an "append", only
// removed files a "delete", both (a copy-on-write DELETE or UPDATE, an
// overwrite, a rollback) an "overwrite".
func operation(s *catalogstore.Snapshot) string {
	switch s.Operation {
	case catalogstore.OpCompact, catalogstore.OpStatisticsRefresh:
		return "replace"
	}
	added, deleted := s.Summary.AddedFiles > 0, s.Summary.DeletedFiles > 0
	switch {
	case added && !deleted:
		return "append"
	case deleted && !added:
		return "delete"
	case added && deleted:
		return "overwrite"
	}
	if s.Operation == catalogstore.OpAppend || s.Operation == catalogstore.OpAddFiles {
		return "append"
	}
	return "overwrite"
}

// summary is the snapshot summary Iceberg readers show, with lakesql's own
// operation and author kept under lakesql.* keys.
func summary(s *catalogstore.Snapshot) map[string]string {
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	m := map[string]string{
		"operation":              operation(s),
		"added-data-files":       i(s.Summary.AddedFiles),
		"deleted-data-files":     i(s.Summary.DeletedFiles),
		"added-records":          i(s.Summary.AddedRecords),
		"deleted-records":        i(s.Summary.DeletedRecords),
		"total-data-files":       i(s.Summary.TotalFiles),
		"total-records":          i(s.Summary.TotalRecords),
		"total-files-size":       i(s.Summary.TotalBytes),
		"total-delete-files":     "0",
		"total-position-deletes": "0",
		"total-equality-deletes": "0",
		"lakesql.operation":      string(s.Operation),
	}
	if s.Author != "" {
		m["lakesql.author"] = s.Author
	}
	return m
}

// sameState reports whether two metadata files describe the same table
// state: everything but the time of writing and the metadata log.
func sameState(a, b *metadata) bool {
	ca, cb := *a, *b
	ca.LastUpdatedMS, cb.LastUpdatedMS = 0, 0
	ca.MetadataLog, cb.MetadataLog = nil, nil
	ja, err1 := json.Marshal(ca)
	jb, err2 := json.Marshal(cb)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
