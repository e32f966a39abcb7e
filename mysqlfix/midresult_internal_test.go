package mysqlfix

import (
	"bytes"
	"errors"
	"net"
	"testing"

	"github.com/dolthub/vitess/go/mysql"
)

// recordConn is a net.Conn that keeps what is written to it.
type recordConn struct {
	net.Conn
	out bytes.Buffer
}

func (r *recordConn) Write(p []byte) (int, error) { return r.out.Write(p) }

// TestStreamConn_ReplacesTheNextPacket: armed with an error, a StreamConn
// writes an ERR packet with the sequence number of the next packet in
// place of it, however the packet is split into writes, and passes
// everything before and after unchanged.
func TestStreamConn_ReplacesTheNextPacket(t *testing.T) {
	row := framePacket(5, []byte{3, 'a', 'b', 'c'})
	eof := framePacket(6, []byte{0xfe, 0, 0, 2, 0})
	next := framePacket(1, []byte{0, 0, 0, 2, 0, 0, 0})
	cases := []struct {
		name string
		err  error
		want []byte
	}{
		{"sql error", mysql.NewSQLError(1690, "22003", "BIGINT value is out of range"),
			framePacket(6, append([]byte{0xff, 0x9a, 0x06, '#'}, "22003BIGINT value is out of range"...))},
		{"other error", errors.New("boom"),
			framePacket(6, append([]byte{0xff, 0x51, 0x04, '#'}, "HY000unknown error: boom"...))},
	}
	for _, c := range cases {
		for split := 1; split <= len(eof)+1; split++ {
			rc := &recordConn{}
			s := &StreamConn{Conn: rc}
			write := func(b []byte) {
				for len(b) > 0 {
					k := min(split, len(b))
					if n, err := s.Write(b[:k]); err != nil || n != k {
						t.Fatalf("%s, split %d: Write = %d, %v", c.name, split, n, err)
					}
					b = b[k:]
				}
			}
			write(row)
			s.arm(c.err)
			write(eof)
			write(next)
			want := append(append(append([]byte{}, row...), c.want...), next...)
			if !bytes.Equal(rc.out.Bytes(), want) {
				t.Fatalf("%s, split %d:\n got %v\nwant %v", c.name, split, rc.out.Bytes(), want)
			}
		}
	}
}

// TestErrPayload_BoundsTheMessage: a long message is cut to MySQL's
// 512 bytes.
func TestErrPayload_BoundsTheMessage(t *testing.T) {
	long := string(bytes.Repeat([]byte{'x'}, 2000))
	p := errPayload(mysql.NewSQLError(1105, "HY000", "%s", long))
	if len(p) != 9+maxErrMessage {
		t.Fatalf("payload of %d bytes, want %d", len(p), 9+maxErrMessage)
	}
}
