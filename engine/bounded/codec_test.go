package bounded

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// TestCodec_RoundTripsEveryType: a spilled row comes back with the very
// Go types and values it had, DECIMAL scale and time zone included.
func TestCodec_RoundTripsEveryType(t *testing.T) {
	rows := [][]any{
		{nil, true, false, int8(-8), int16(-16), int32(-32), int64(-1 << 62), int(7)},
		{uint8(8), uint16(16), uint32(32), uint64(1<<64 - 1), uint(9), float32(1.5), float64(-2.25)},
		{"", "héllo", []byte{0, 1, 2}, []byte{}},
		{decimal.RequireFromString("1.50"), decimal.RequireFromString("-123456789012345678901234567890.123"), decimal.Zero},
		{time.Date(2024, 2, 29, 23, 59, 58, 123456000, time.UTC), time.Date(1901, 1, 1, 0, 0, 0, 0, time.FixedZone("", 3600)), types.Timespan(-3600000000)},
		{},
	}
	var buf bytes.Buffer
	enc := encoder{w: bufio.NewWriter(&buf)}
	for _, r := range rows {
		if err := enc.row(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.w.Flush(); err != nil {
		t.Fatal(err)
	}
	dec := decoder{r: bufio.NewReader(&buf)}
	for i, want := range rows {
		got, err := dec.row()
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if len(got) != len(want) {
			t.Fatalf("row %d: %d values, want %d", i, len(got), len(want))
		}
		for j := range want {
			if !sameValue(got[j], want[j]) {
				t.Errorf("row %d col %d: got %#v (%T), want %#v (%T)", i, j, got[j], got[j], want[j], want[j])
			}
		}
	}
	if _, err := dec.row(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last row: %v, want EOF", err)
	}
}

func sameValue(a, b any) bool {
	switch x := b.(type) {
	case decimal.Decimal:
		y, ok := a.(decimal.Decimal)
		return ok && y.Equal(x) && y.Exponent() == x.Exponent()
	case time.Time:
		y, ok := a.(time.Time)
		_, xo := x.Zone()
		_, yo := y.Zone()
		return ok && y.Equal(x) && xo == yo
	}
	return reflect.DeepEqual(a, b)
}

func TestCodec_RefusesWhatItCannotRoundTrip(t *testing.T) {
	enc := encoder{w: bufio.NewWriter(io.Discard)}
	err := enc.row([]any{int64(1), types.JSONDocument{Val: map[string]any{"a": 1}}})
	if !errors.Is(err, errUnspillable) {
		t.Fatalf("got %v, want errUnspillable", err)
	}
}

func TestCodec_TruncatedRunIsAnError(t *testing.T) {
	var buf bytes.Buffer
	enc := encoder{w: bufio.NewWriter(&buf)}
	_ = enc.row([]any{"abcdef", int64(5)})
	_ = enc.w.Flush()
	dec := decoder{r: bufio.NewReader(bytes.NewReader(buf.Bytes()[:buf.Len()-1]))}
	if _, err := dec.row(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v, want ErrUnexpectedEOF", err)
	}
}
