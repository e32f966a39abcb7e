package manifest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
)

// Data file checksums are CRC-32C (Castagnoli): it runs in hardware (SSE
// 4.2, ARMv8 CRC) at several GB/s, so checking every byte read costs
// little next to decoding it; it detects every burst error up to 32 bits
// and random damage with probability 1-2^-32, which is what a checksum
// against bit rot, torn or misdirected writes and byte flips needs (it is
// not a defence against deliberate tampering, which the object store's
// access control is); and it is the checksum GCS computes for every
// object, so a whole-file value can be compared with the store's own.
const checksumPrefix = "crc32c:"

// castagnoli is read-only after initialisation.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC32C is the CRC-32C of data.
func CRC32C(data []byte) uint32 { return crc32.Checksum(data, castagnoli) }

// NewCRC32C returns a running CRC-32C, for checksumming a stream.
func NewCRC32C() interface {
	Write([]byte) (int, error)
	Sum32() uint32
} {
	return crc32.New(castagnoli)
}

// FileChecksum formats a whole file's CRC-32C as DataFile.Checksum
// records it.
func FileChecksum(crc uint32) string { return fmt.Sprintf("%s%08x", checksumPrefix, crc) }

// ValidChecksum reports whether s has the form DataFile.Checksum takes.
func ValidChecksum(s string) bool {
	hex, ok := strings.CutPrefix(s, checksumPrefix)
	if !ok || len(hex) != 8 {
		return false
	}
	for _, c := range hex {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// packSums encodes part checksums for the manifest: 4 bytes each, big
// endian.
func packSums(sums []uint32) []byte {
	b := make([]byte, 4*len(sums))
	for i, s := range sums {
		binary.BigEndian.PutUint32(b[4*i:], s)
	}
	return b
}

// unpackSums decodes packSums' bytes.
func unpackSums(b []byte) ([]uint32, error) {
	if len(b)%4 != 0 {
		return nil, errors.New("part checksums not a multiple of 4 bytes")
	}
	sums := make([]uint32, len(b)/4)
	for i := range sums {
		sums[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	return sums, nil
}
