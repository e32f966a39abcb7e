package partition

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Seed corpora live in testdata/fuzz/<target>/, one file per named case.

// FuzzTruncateString: truncate[W] of valid UTF-8 is its prefix of
// min(W, code points) code points, itself valid UTF-8; invalid UTF-8 is
// refused with ErrBadValue; the result round-trips through ToString.
func FuzzTruncateString(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string, w uint32) {
		width := int(w%math.MaxInt32) + 1
		tr := Truncate(width)
		got, err := tr.Apply(tString, s)
		if !utf8.ValidString(s) {
			if !errors.Is(err, ErrBadValue) {
				t.Fatalf("truncate[%d](%q) of invalid UTF-8 = %q, %v; want ErrBadValue", width, s, got, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("truncate[%d](%q): %v", width, s, err)
		}
		r := got.(string)
		if !strings.HasPrefix(s, r) || !utf8.ValidString(r) {
			t.Fatalf("truncate[%d](%q) = %q: not a valid UTF-8 prefix", width, s, r)
		}
		if n, want := utf8.RuneCountInString(r), min(width, utf8.RuneCountInString(s)); n != want {
			t.Fatalf("truncate[%d](%q) = %q has %d code points, want %d", width, s, r, n, want)
		}
		str, err := tr.ToString(tString, r)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := tr.FromString(tString, str); err != nil || back != r {
			t.Fatalf("ToString/FromString(%q) = %v, %v", r, back, err)
		}
		// Truncating twice changes nothing.
		if again, _ := tr.Apply(tString, r); again != r {
			t.Fatalf("truncate[%d] not idempotent on %q: %q", width, r, again)
		}
	})
}

// FuzzBucket: bucket[N] is in [0, N) for every bucketable type, ints of
// every width bucket as the long, dates as the long of their int, strings
// as their bytes, and decimals hash their minimum two's-complement bytes.
func FuzzBucket(f *testing.F) {
	f.Fuzz(func(t *testing.T, n uint32, x int64, b []byte) {
		nb := int64(n%math.MaxInt32) + 1
		tr := Bucket(int(nb))
		apply := func(typ schema.Type, v any) int64 {
			t.Helper()
			got, err := tr.Apply(typ, v)
			if err != nil {
				t.Fatalf("%s.Apply(%s, %#v): %v", tr, typ, v, err)
			}
			r := got.(int64)
			if r < 0 || r >= nb {
				t.Fatalf("%s.Apply(%s, %#v) = %d, not in [0, %d)", tr, typ, v, r, nb)
			}
			return r
		}
		long := apply(tInt64, x)
		if ts := apply(tTimestamp, x); ts != long {
			t.Fatalf("timestamp %d buckets to %d, long to %d", x, ts, long)
		}
		for _, k := range []schema.Kind{schema.Int8, schema.Int16, schema.Int32, schema.Uint8, schema.Uint16, schema.Uint32} {
			if lo, hi := k.IntRange(); x >= lo && x <= hi {
				if got := apply(schema.Type{Kind: k}, x); got != long {
					t.Fatalf("%s %d buckets to %d, long to %d", k, x, got, long)
				}
			}
		}
		d := int32(x)
		if got, want := apply(tDate, d), apply(tInt64, int64(d)); got != want {
			t.Fatalf("date %d buckets to %d, long to %d", d, got, want)
		}
		if x >= 0 && x < microsPerDay {
			apply(tTime, x)
		}
		if s, bin := apply(tString, string(b)), apply(tBinary, b); s != bin {
			t.Fatalf("string and binary of %x bucket to %d and %d", b, s, bin)
		}
		u := new(big.Int).SetBytes(b)
		if len(b) > 0 && b[0]&1 == 1 {
			u.Neg(u)
		}
		if u.CmpAbs(pow10[38]) < 0 {
			apply(schema.Type{Kind: schema.Decimal, Precision: 38, Scale: 2}, Decimal{Unscaled: u, Scale: 2})
		}
		// minBigEndian is minimal and decodes back to the value.
		enc := minBigEndian(u)
		back := new(big.Int).SetBytes(enc)
		if enc[0]&0x80 != 0 {
			back.Sub(back, new(big.Int).Lsh(big.NewInt(1), uint(8*len(enc))))
		}
		if back.Cmp(u) != 0 {
			t.Fatalf("minBigEndian(%s) = %x decodes to %s", u, enc, back)
		}
		if len(enc) > 1 && ((enc[0] == 0 && enc[1]&0x80 == 0) || (enc[0] == 0xff && enc[1]&0x80 != 0)) {
			t.Fatalf("minBigEndian(%s) = %x is not minimal", u, enc)
		}
	})
}

// FuzzParseTransform: ParseTransform never panics, refuses with
// ErrBadTransform, and what it accepts survives String, ParseTransform and
// the JSON text form unchanged.
func FuzzParseTransform(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		tr, err := ParseTransform(s)
		if err != nil {
			if !errors.Is(err, ErrBadTransform) {
				t.Fatalf("ParseTransform(%q): %v, want ErrBadTransform", s, err)
			}
			return
		}
		if tr.IsZero() || tr.valid() != nil {
			t.Fatalf("ParseTransform(%q) = invalid %#v", s, tr)
		}
		again, err := ParseTransform(tr.String())
		if err != nil || again != tr || again.String() != tr.String() {
			t.Fatalf("ParseTransform(%q) = %q, which parses as %#v, %v", s, tr, again, err)
		}
		text, err := tr.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Transform
		if err := back.UnmarshalText(text); err != nil || back != tr {
			t.Fatalf("text round trip of %q: %#v, %v", tr, back, err)
		}
		// Every transform answers Accepts and ResultType without panicking.
		for _, typ := range []schema.Type{tInt64, tString, tDate, tTimestamp, {Kind: schema.JSON}} {
			if _, err := tr.ResultType(typ); (err == nil) != tr.Accepts(typ) {
				t.Fatalf("%s: ResultType(%s) err %v disagrees with Accepts", tr, typ, err)
			}
		}
	})
}
