package bounded

import (
	"time"

	"github.com/shopspring/decimal"
)

// Estimated Go heap sizes: a row is a slice header and an interface pair
// per value, plus what each value points to.
const (
	rowHeader   = 24
	ifaceSize   = 16
	boxedWord   = 8
	otherValue  = 64 // a value of a type not sized here (JSON, …)
	mapEntry    = 48 // a hash-table entry: key, slice header, overhead
	aggBuffer   = 64 // an aggregation buffer of a group
	stringExtra = 16
)

// rowSize estimates the heap a row held in memory occupies.
func rowSize(r []any) int64 {
	n := int64(rowHeader + ifaceSize*len(r))
	for _, v := range r {
		n += valueSize(v)
	}
	return n
}

// KeyedRowSize estimates a row kept in a hash table: the row and its
// entry. Operators outside this package that charge a budget for rows
// they hold (the vectorised rewrites' hash builds) size them here too.
func KeyedRowSize(r []any) int64 { return rowSize(r) + mapEntry }

func valueSize(v any) int64 {
	switch x := v.(type) {
	case nil, bool, int8, uint8:
		return 0
	case int16, int32, int64, int, uint16, uint32, uint64, uint, float32, float64:
		return boxedWord
	case string:
		return int64(len(x)) + stringExtra
	case []byte:
		return int64(len(x)) + rowHeader
	case decimal.Decimal:
		return 56 // a decimal and its big.Int (a few words)
	case time.Time:
		return 24
	}
	return otherValue
}
