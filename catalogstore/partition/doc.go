// Package partition implements a dataset's partition spec: Iceberg's
// partition transforms exactly as the Iceberg table spec defines them,
// pinned to its published test vectors (Appendix B), the partition-value
// strings a manifest stores, and the projection of source-column
// predicates onto partition values that lets the scan planner prune.
//
// # Model
//
// A Spec is an ordered list of Fields; each applies a Transform to one
// source column, named by its schema field id. Partition field ids start at
// FirstFieldID (1000). Spec.Validate checks a spec against its schema: each
// transform accepts a closed list of source types, and anything else is
// refused by name with a *TransformTypeError:
//
//	identity     every type except json
//	bucket[N]    int8..int64, uint8..uint32, decimal, date, time, timestamp, string, binary
//	truncate[W]  int8..int64, uint8..uint32, decimal, string, binary
//	year, month, day   date, timestamp
//	hour         timestamp
//	void         every type
//
// A Transform is a JSON string in the catalog spelling ("bucket[16]"),
// so a Spec serialises as
//
//	{"spec-id": 1, "fields": [{"source-id": 3, "field-id": 1000, "name": "ts_day", "transform": "day"}]}
//
// # Values
//
// Transform.Apply, Hash, Field.Project and FormatValue take and return
// values in one Go representation per column type:
//
//	boolean                   bool
//	int8..int64, uint8..uint32  int64
//	uint64                    uint64
//	float32, float64          float64
//	decimal(P,S)              Decimal{Unscaled *big.Int, Scale int}, Scale == S
//	string, json              string
//	binary                    []byte
//	date                      int32 days since 1970-01-01
//	time                      int64 µs since midnight, in [0, 86400e6)
//	timestamp                 int64 µs since 1970-01-01T00:00:00Z
//
// nil is null for every type. Any other Go type is refused (ErrBadValue);
// nothing is converted implicitly. Partition values of bucket, year,
// month, day and hour have type int32 and so are int64 values too.
//
// Every transform maps null to null, so null rows form their own
// partition. bucket[N] hashes with Murmur3 x86 32-bit, seed 0, over the
// Appendix B representation: integers (of every width) as 8-byte
// little-endian longs, dates as ints hashed as longs, times and timestamps
// as µs longs, decimals as the minimum big-endian two's-complement bytes of
// the unscaled value, strings as UTF-8 bytes, binary as is. truncate counts
// code points for strings, never bytes. The time transforms count from
// 1970 by floor division, so values before 1970 are negative: day of
// 1969-12-31T23:59:59.999999 is -1, as are its month and year.
//
// # Manifest strings
//
// A manifest stores each partition value as a nullable string:
// Transform.ToString and FromString (or FormatValue and ParseValue on a
// type) convert, exactly and in both directions. Integers are decimal
// text, so month 2026-01 is "672"; see FormatValue for the other types.
//
// # Caveats
//
// Projection assumes the engine compares strings byte-wise (code point
// order); a case-insensitive collation must not prune with a truncate
// projection. truncate may step just below a narrow type's minimum
// (truncate[10] of int8 -128 is -130); partition values are therefore held
// as int64 and not range-checked. Every function is pure and safe for
// concurrent use.
package partition
