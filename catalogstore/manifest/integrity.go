package manifest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
)

// Version 2 manifests carry a CRC-32C of the whole file's bytes instead of
// version 1's CRC-64 of the decoded content. The content hash cost more
// than decoding itself (a byte-at-a-time CRC-64 fed eight bytes per call,
// a million calls for 20,000 entries), and it can only be checked after
// decoding every column, which rules out projection. CRC-32C runs in
// hardware over the raw bytes, once, before anything is decoded, and
// covers every byte (pages, page headers and the footer), so reading only
// some columns is still checked against the whole file.
//
// The checksum sits in the footer it covers: Encode writes the footer with
// crcPlaceholder as the value, hashes the finished file, and overwrites the
// placeholder in place (same length, so no offset moves). Readers hash the
// file with the placeholder put back.
const (
	metaCRC        = "lakesql.manifest.crc32c"
	crcPlaceholder = "00000000"
)

// crcTable32 is read-only after initialisation.
var crcTable32 = crc32.MakeTable(crc32.Castagnoli)

// crcValueAt returns the offset in data of the 8-byte checksum value in the
// footer's key-value metadata, where value (as the footer reader decoded
// it) is stored right after the key.
func crcValueAt(data []byte, value string) (int, error) {
	if len(data) < 12 {
		return 0, errors.New("too short for a footer")
	}
	flen := int64(binary.LittleEndian.Uint32(data[len(data)-8:]))
	start := int64(len(data)) - 8 - flen
	if start < 4 {
		return 0, fmt.Errorf("footer length %d out of range", flen)
	}
	footer := data[start : len(data)-8]
	key := []byte(metaCRC)
	k := bytes.Index(footer, key)
	if k < 0 || bytes.Contains(footer[k+1:], key) {
		return 0, errors.New("checksum key missing or repeated in footer")
	}
	// Thrift compact encoding puts a field header and the length between
	// the key and its value: two bytes, a few more at most.
	after := footer[k+len(key):]
	win := after[:min(len(after), 6+len(value))]
	v := bytes.Index(win, []byte(value))
	if v < 0 || len(value) != len(crcPlaceholder) {
		return 0, errors.New("checksum value not found after its key")
	}
	return int(start) + k + len(key) + v, nil
}

// fileCRC is the checksum of data with the placeholder at at.
func fileCRC(data []byte, at int) uint32 {
	c := crc32.Update(0, crcTable32, data[:at])
	c = crc32.Update(c, crcTable32, []byte(crcPlaceholder))
	return crc32.Update(c, crcTable32, data[at+len(crcPlaceholder):])
}

// sealCRC overwrites the placeholder in an encoded manifest with the
// file's checksum.
func sealCRC(data []byte) error {
	at, err := crcValueAt(data, crcPlaceholder)
	if err != nil {
		return err
	}
	copy(data[at:], fmt.Sprintf("%08x", fileCRC(data, at)))
	return nil
}

// verifyCRC checks a version 2 manifest's checksum, whose footer value is
// value.
func verifyCRC(data []byte, value string) error {
	want, err := strconv.ParseUint(value, 16, 32)
	if err != nil || len(value) != len(crcPlaceholder) {
		return fmt.Errorf("bad checksum %q", value)
	}
	at, err := crcValueAt(data, value)
	if err != nil {
		return err
	}
	if got := fileCRC(data, at); uint64(got) != want {
		return fmt.Errorf("checksum mismatch: file %08x, footer %08x", got, want)
	}
	return nil
}
