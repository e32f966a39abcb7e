package mysqlfix

import (
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/vitess/go/netutil"
)

// Wire limits vitess does not enforce (issue 18, item 8). vitess reads a
// command of any size into memory (GMS then plans it, ~14× its size) and
// waits forever for the rest of a packet a client stopped sending; GMS
// notices a client that went away only while it streams rows, and only
// on a bare *net.TCPConn. A guarded connection sits under vitess (and
// under TLS) and reads the socket itself:
//   - it follows the packet framing of plain connections and refuses a
//     command longer than max_allowed_packet as MySQL does: error 1153,
//     then the connection is closed, before the payload is read;
//   - while a packet (or, under TLS, a TLS record) is incomplete, it
//     waits at most net_read_timeout for the rest, then drops the client;
//   - it reads ahead, so it sees at once when the client hangs up, and
//     Gone reports it (the handler cancels the running statement).

// ErrPacketTooLarge is MySQL's ER_NET_PACKET_TOO_LARGE text.
var ErrPacketTooLarge = errors.New("Got a packet bigger than 'max_allowed_packet' bytes")

// errReadTimeout drops a client that stopped sending mid-packet.
var errReadTimeout = &timeoutError{}

type timeoutError struct{}

func (*timeoutError) Error() string   { return "net_read_timeout: the client stopped sending mid-packet" }
func (*timeoutError) Timeout() bool   { return true }
func (*timeoutError) Temporary() bool { return false }

// GuardListener wraps accepted connections in guarded connections.
type GuardListener struct {
	net.Listener
	// MaxPacket returns max_allowed_packet for a new connection (MySQL
	// fixes a session's value at connect from the global); <= 0: none.
	MaxPacket func() int64
	// ReadTimeout is net_read_timeout; 0: none.
	ReadTimeout time.Duration
}

// Accept implements net.Listener.
func (l *GuardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	var limit int64
	if l.MaxPacket != nil {
		limit = l.MaxPacket()
	}
	return newGuardedConn(c, limit, l.ReadTimeout), nil
}

// chunk is bytes read from the socket, or the error that ended reading.
type chunk struct {
	b   []byte
	err error
}

// GuardedConn is a connection read by its own goroutine (see above). Read
// is for one reader at a time, like any net.Conn read by vitess.
type GuardedConn struct {
	net.Conn
	readTimeout time.Duration
	chunks      chan chunk
	gone        chan struct{} // closed when the socket read failed: the client left
	closed      chan struct{} // closed by Close: stops the reading goroutine
	closeOnce   sync.Once
	mid         atomic.Bool // the client owes the rest of a packet
	rest        []byte      // bytes of the last chunk not yet returned by Read
	err         error       // the error that ended reading, once Read reached it
}

func newGuardedConn(c net.Conn, maxPacket int64, readTimeout time.Duration) *GuardedConn {
	g := &GuardedConn{Conn: c, readTimeout: readTimeout, chunks: make(chan chunk, 1),
		gone: make(chan struct{}), closed: make(chan struct{})}
	go g.pump(&framer{max: maxPacket})
	return g
}

// Gone is closed once the client has closed its side (or the socket
// failed).
func (g *GuardedConn) Gone() <-chan struct{} { return g.gone }

// pump reads the socket ahead of vitess, checking the framing as it goes.
func (g *GuardedConn) pump(f *framer) {
	defer close(g.gone)
	for {
		buf := make([]byte, 32<<10)
		n, err := g.Conn.Read(buf)
		if n > 0 {
			ok, ferr := f.feed(buf[:n])
			g.mid.Store(f.mid())
			if ok > 0 && !g.send(chunk{b: buf[:ok]}) {
				return
			}
			if ferr != nil {
				g.refuse(f.seq + 1)
				g.send(chunk{err: ferr})
				return
			}
		}
		if err != nil {
			g.send(chunk{err: err})
			return
		}
	}
}

// send hands c to Read, unless the connection was closed.
func (g *GuardedConn) send(c chunk) bool {
	select {
	case g.chunks <- c:
		return true
	case <-g.closed:
		return false
	}
}

// refuse sends MySQL's 1153 error packet (sequence number seq) and closes
// the socket, as MySQL does for a packet over max_allowed_packet. vitess
// is waiting for the command, not writing, so the packet is not
// interleaved with its output.
func (g *GuardedConn) refuse(seq byte) {
	msg := ErrPacketTooLarge.Error()
	payload := append([]byte{0xff, 0x81, 0x04, '#'}, "08S01"+msg...) // 1153, little-endian
	pkt := framePacket(seq, payload)
	_ = g.Conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, _ = g.Conn.Write(pkt)
	_ = g.Conn.Close()
}

// Read implements net.Conn.
func (g *GuardedConn) Read(p []byte) (int, error) {
	if len(g.rest) > 0 {
		n := copy(p, g.rest)
		g.rest = g.rest[n:]
		return n, nil
	}
	if g.err != nil {
		return 0, g.err
	}
	var timeout <-chan time.Time
	if g.readTimeout > 0 && g.mid.Load() {
		t := time.NewTimer(g.readTimeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case c := <-g.chunks:
		if c.err != nil {
			g.err = c.err
			return 0, c.err
		}
		n := copy(p, c.b)
		g.rest = c.b[n:]
		return n, nil
	case <-timeout:
		g.err = errReadTimeout
		_ = g.Conn.Close()
		return 0, g.err
	case <-g.closed:
		return 0, net.ErrClosed
	}
}

// Close implements net.Conn.
func (g *GuardedConn) Close() error {
	g.closeOnce.Do(func() { close(g.closed) })
	return g.Conn.Close()
}

// GuardOf finds the guarded connection under c (vitess wraps it for its
// write timeout, TLS wraps that, and a StreamConn is on top), or nil.
func GuardOf(c net.Conn) *GuardedConn {
	for c != nil {
		switch x := c.(type) {
		case *GuardedConn:
			return x
		case *StreamConn:
			c = x.Conn
		case netutil.ConnWithTimeouts:
			c = x.Conn
		case *tls.Conn:
			c = x.NetConn()
		default:
			return nil
		}
	}
	return nil
}

// framer follows the client's packet framing: MySQL packets (a 4-byte
// header: 3-byte length, sequence number; a 0xffffff-byte packet is
// continued by the next) until the client asks for TLS, then TLS records
// (a 5-byte header ending in a 2-byte length), whose contents it cannot
// see.
type framer struct {
	max     int64 // max_allowed_packet; <= 0: none
	tls     bool
	hdr     [5]byte
	hn      int   // header bytes collected
	need    int64 // payload bytes of the current packet still to come
	msg     int64 // payload bytes of the current command so far
	cont    bool  // the current packet is continued by the next
	seq     byte
	packets int // packets completed
	sslReq  bool
}

// mysqlMaxPacket is the largest payload of one MySQL packet.
const mysqlMaxPacket = 1<<24 - 1

// sslRequestLen is the payload length of a client's SSL request, shorter
// than any handshake response (which adds at least a user name).
const sslRequestLen = 32

// feed consumes b and returns how many of its bytes may be passed on, and
// ErrPacketTooLarge when a command grows past max (the bytes from the
// offending header on are withheld).
func (f *framer) feed(b []byte) (int, error) {
	i := 0
	for i < len(b) {
		if f.need > 0 {
			k := min(int64(len(b)-i), f.need)
			f.need -= k
			i += int(k)
			if f.need == 0 {
				f.endPacket()
			}
			continue
		}
		h := 4
		if f.tls {
			h = 5
		}
		start := i
		for f.hn < h && i < len(b) {
			f.hdr[f.hn] = b[i]
			f.hn++
			i++
		}
		if f.hn < h {
			break
		}
		f.hn = 0
		if f.tls {
			f.need = int64(f.hdr[3])<<8 | int64(f.hdr[4])
			continue
		}
		length := int64(f.hdr[0]) | int64(f.hdr[1])<<8 | int64(f.hdr[2])<<16
		f.seq = f.hdr[3]
		f.msg += length
		if f.max > 0 && f.msg > f.max {
			return start, ErrPacketTooLarge
		}
		f.cont = length == mysqlMaxPacket
		f.sslReq = f.packets == 0 && length == sslRequestLen
		f.need = length
		if length == 0 {
			f.endPacket()
		}
	}
	return len(b), nil
}

// endPacket closes the current packet.
func (f *framer) endPacket() {
	f.packets++
	if !f.cont {
		f.msg = 0
	}
	if f.sslReq {
		f.tls = true // the next bytes are the TLS handshake
		f.sslReq = false
	}
}

// mid reports whether the client owes the rest of a packet or record.
func (f *framer) mid() bool { return f.hn > 0 || f.need > 0 || f.cont }
