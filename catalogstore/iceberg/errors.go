package iceberg

import "errors"

// These errors are returned when a dataset cannot be exported.
var (
	// ErrNoIcebergType: a column's type has no Iceberg type its data files
	// can be read as exactly (BIGINT UNSIGNED, INT UNSIGNED). Nothing is
	// written: the export is refused before any metadata.json.
	ErrNoIcebergType = errors.New("no Iceberg type")
	// ErrBadMetadata: existing Iceberg metadata under the dataset's
	// location cannot be read (a damaged manifest list, version-hint.text
	// that is not a number).
	ErrBadMetadata = errors.New("unreadable Iceberg metadata")
)
