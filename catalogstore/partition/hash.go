package partition

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// murmur3x86_32 is MurmurHash3's 32-bit x86 variant (Austin Appleby's
// MurmurHash3_x86_32), the hash of Iceberg's bucket transform with seed 0.
func murmur3x86_32(data []byte, seed uint32) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	n := len(data)
	i := 0
	for ; i+4 <= n; i += 4 {
		k := binary.LittleEndian.Uint32(data[i:])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch n - i {
	case 3:
		k ^= uint32(data[i+2]) << 16
		fallthrough
	case 2:
		k ^= uint32(data[i+1]) << 8
		fallthrough
	case 1:
		k ^= uint32(data[i])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// hashBytes is Appendix B's hashBytes, as Java's signed int.
func hashBytes(b []byte) int32 { return int32(murmur3x86_32(b, 0)) }

// hashLong hashes the 8 little-endian bytes of v.
func hashLong(v int64) int32 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	return hashBytes(b[:])
}

// hashInt is hashLong(long(v)): ints and longs hash alike, so promoting
// int to long keeps every bucket.
func hashInt(v int32) int32 { return hashLong(int64(v)) }

// hashDouble is hashLong(doubleToLongBits(v)), with -0.0 hashed as 0.0 and
// every NaN as the canonical 0x7ff8000000000000.
func hashDouble(v float64) int32 {
	switch {
	case v == 0:
		v = 0
	case math.IsNaN(v):
		return hashLong(0x7ff8000000000000)
	}
	return hashLong(int64(math.Float64bits(v)))
}

// minBigEndian is the minimum-length two's-complement big-endian encoding
// of x, as Java's BigInteger.toByteArray (0 is one zero byte).
func minBigEndian(x *big.Int) []byte {
	var n int // bytes: bitLength/8 + 1, where a negative x's bitLength is that of ^x
	if x.Sign() >= 0 {
		n = x.BitLen()/8 + 1
	} else {
		n = new(big.Int).Not(x).BitLen()/8 + 1
	}
	mod := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
	u := new(big.Int).Mod(x, mod) // x + 2^(8n) when negative
	b := u.Bytes()
	out := make([]byte, n)
	copy(out[n-len(b):], b)
	return out
}

// Hash returns the Iceberg Appendix B hash of v, a non-nil value of type typ
// in its Go representation: integers hash as longs, dates as ints (so as
// longs too), times and timestamps as longs of µs, decimals as the minimum
// big-endian two's complement bytes of the unscaled value, strings as their
// UTF-8 bytes, binary as the bytes. Booleans (as int 0/1) and floats (as
// the bits of a double, -0.0 as 0.0, NaN canonical) hash too, as Appendix B
// specifies, though bucket does not accept them. uint64 and json have no
// hash. It returns ErrTransformType or ErrBadValue.
func Hash(typ schema.Type, v any) (int32, error) {
	switch typ.Kind {
	case schema.Uint64, schema.JSON:
		return 0, fmt.Errorf("%w: type %s has no Iceberg hash", ErrTransformType, typ)
	}
	if v == nil {
		return 0, badValue(typ, v, "null has no hash")
	}
	if err := checkValue(typ, v, true); err != nil {
		return 0, err
	}
	switch typ.Kind {
	case schema.Bool:
		if v.(bool) {
			return hashInt(1), nil
		}
		return hashInt(0), nil
	case schema.Float32, schema.Float64:
		return hashDouble(v.(float64)), nil
	case schema.Decimal:
		return hashBytes(minBigEndian(v.(Decimal).Unscaled)), nil
	case schema.String:
		return hashBytes([]byte(v.(string))), nil
	case schema.Binary:
		return hashBytes(v.([]byte)), nil
	case schema.Date:
		return hashInt(v.(int32)), nil
	}
	return hashLong(v.(int64)), nil // ints, time, timestamp
}
