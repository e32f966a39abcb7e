package mysqlfix

import (
	"errors"
	"testing"
)

// packet frames payload as one MySQL packet with sequence number seq.
func packet(n int, seq byte) []byte {
	b := []byte{byte(n), byte(n >> 8), byte(n >> 16), seq}
	return append(b, make([]byte, n)...)
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestFramer follows packets split at every byte boundary: whole
// commands pass, a command over the limit is cut before its offending
// header, continuation packets add up, and an SSL request switches to TLS
// records.
func TestFramer(t *testing.T) {
	cases := []struct {
		name    string
		max     int64
		stream  []byte
		pass    int  // bytes passed on (too big: up to the offending header, of which a part split off may have passed)
		tooBig  bool // ErrPacketTooLarge
		midEnds bool // the client still owes bytes at the end
	}{
		{"two small commands", 100, cat(packet(40, 1), packet(10, 0)), 58, false, false},
		{"a command at the limit", 100, packet(100, 0), 104, false, false},
		{"a command over the limit", 100, cat(packet(10, 0), packet(101, 0)), 14, true, false},
		{"continued packets add up", 1 << 25, cat(packet(mysqlMaxPacket, 0), packet(5, 1)), mysqlMaxPacket + 13, false, false},
		{"continued packets over the limit", mysqlMaxPacket + 4, cat(packet(mysqlMaxPacket, 0), packet(5, 1)), mysqlMaxPacket + 4, true, false},
		{"an unfinished packet", 100, packet(50, 0)[:30], 30, false, true},
		{"an unfinished header", 100, []byte{5, 0}, 2, false, true},
		{"SSL request then TLS records", 100, cat(packet(sslRequestLen, 1), []byte{22, 3, 1, 0, 200}, make([]byte, 200)), 4 + sslRequestLen + 205, false, false},
		{"an unfinished TLS record", 100, cat(packet(sslRequestLen, 1), []byte{23, 3, 3, 1, 0}, make([]byte, 10)), 4 + sslRequestLen + 15, false, true},
	}
	for _, c := range cases {
		for _, step := range []int{1, 3, 7, 1 << 20} {
			f := &framer{max: c.max}
			passed := 0
			var err error
			for i := 0; i < len(c.stream) && err == nil; i += step {
				end := min(i+step, len(c.stream))
				var n int
				n, err = f.feed(c.stream[i:end])
				passed += n
			}
			passOK := passed == c.pass || (c.tooBig && passed > c.pass && passed < c.pass+4)
			if !passOK || errors.Is(err, ErrPacketTooLarge) != c.tooBig || (err == nil && f.mid() != c.midEnds) {
				t.Errorf("%s (chunks of %d): passed %d, err %v, mid %v; want %d, too big %v, mid %v",
					c.name, step, passed, err, f.mid(), c.pass, c.tooBig, c.midEnds)
			}
		}
	}
}
