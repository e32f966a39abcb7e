package datafile

import "errors"

// These errors can occur when data files are written, registered or read.
var (
	// ErrBadBound: EncodeBound got a value of the wrong Go type or outside
	// the column type's range, or DecodeBound got bytes of a length the
	// type cannot have. Planners treat such a bound as unknown.
	ErrBadBound = errors.New("bad bound value")
	// ErrIncompatible: a Parquet file's column cannot be read as the
	// schema's column (a type that is not the same or a lossless
	// widening, or a type outside the vocabulary). add_files refuses the
	// file; nothing is registered.
	ErrIncompatible = errors.New("file column incompatible with schema")
	// ErrBadFile: the object is not a readable Parquet file (too small, no
	// magic, undecodable footer).
	ErrBadFile = errors.New("not a readable parquet file")
)

// These errors report damage to a data file that its recorded checksums
// caught, before any of it was decoded.
var (
	// ErrChecksum: bytes of a data file do not match the checksum its
	// manifest entry records (bit rot, a torn or misdirected write, a
	// tampered file). The read fails rather than answer from the file;
	// restore the file, or remove it from the table, and run fsck --deep.
	// An error that is ErrChecksum is also ErrBadFile.
	ErrChecksum = errors.New("checksum mismatch")
)
