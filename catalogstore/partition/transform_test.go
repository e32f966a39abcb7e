package partition

import (
	"errors"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

func TestParseTransform(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Transform
		str  string
	}{
		{"identity", Identity, "identity"},
		{"bucket[16]", Bucket(16), "bucket[16]"},
		{"truncate[10]", Truncate(10), "truncate[10]"},
		{"year", Year, "year"},
		{"month", Month, "month"},
		{"day", Day, "day"},
		{"hour", Hour, "hour"},
		{"void", Void, "void"},
		{" DAY ", Day, "day"},
		{"Bucket[1]", Bucket(1), "bucket[1]"},
		{"bucket[016]", Bucket(16), "bucket[16]"},
		{"truncate[2147483647]", Truncate(2147483647), "truncate[2147483647]"},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseTransform(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want || got.String() != c.str {
				t.Fatalf("ParseTransform(%q) = %v (%q), want %v (%q)", c.in, got, got.String(), c.want, c.str)
			}
		})
	}
}

func TestParseTransform_Refused(t *testing.T) {
	for _, in := range []string{
		"", "days", "bucket", "bucket[]", "bucket[0]", "bucket[-1]", "bucket[+4]", "bucket[ 4]",
		"bucket[4", "bucket4]", "bucket[2147483648]", "bucket[99999999999]", "truncate[0]",
		"truncate[1.5]", "year[1]", "identity[1]", "bucket(16)", "bucket[16]x", "geometry",
	} {
		if got, err := ParseTransform(in); !errors.Is(err, ErrBadTransform) {
			t.Errorf("ParseTransform(%q) = %v, %v; want ErrBadTransform", in, got, err)
		}
	}
}

func TestBucketTruncate_PanicOutOfRange(t *testing.T) {
	for name, f := range map[string]func(){
		"bucket[0]":    func() { Bucket(0) },
		"truncate[0]":  func() { Truncate(0) },
		"bucket[2^31]": func() { Bucket(1 << 31) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

func TestAccepts_ClosedLists(t *testing.T) {
	all := []schema.Type{
		{Kind: schema.Bool}, {Kind: schema.Int8}, {Kind: schema.Int16}, {Kind: schema.Int32}, {Kind: schema.Int64},
		{Kind: schema.Uint8}, {Kind: schema.Uint16}, {Kind: schema.Uint32}, {Kind: schema.Uint64},
		{Kind: schema.Float32}, {Kind: schema.Float64}, {Kind: schema.Decimal, Precision: 10, Scale: 2},
		{Kind: schema.String}, {Kind: schema.Binary}, {Kind: schema.Date}, {Kind: schema.Time},
		{Kind: schema.Timestamp}, {Kind: schema.JSON},
	}
	want := map[Transform]string{
		Identity:    "boolean int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 decimal(10,2) string binary date time timestamp",
		Bucket(8):   "int8 int16 int32 int64 uint8 uint16 uint32 decimal(10,2) string binary date time timestamp",
		Truncate(8): "int8 int16 int32 int64 uint8 uint16 uint32 decimal(10,2) string binary",
		Year:        "date timestamp",
		Month:       "date timestamp",
		Day:         "date timestamp",
		Hour:        "timestamp",
		Void:        "boolean int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 decimal(10,2) string binary date time timestamp json",
		Transform{}: "",
	}
	for tr, w := range want {
		got := ""
		for _, typ := range all {
			if tr.Accepts(typ) {
				if got != "" {
					got += " "
				}
				got += typ.String()
			}
		}
		if got != w {
			t.Errorf("%q accepts %q, want %q", tr, got, w)
		}
	}
	if Identity.Accepts(schema.Type{Kind: "geometry"}) {
		t.Error("identity accepts a type outside the vocabulary")
	}
}

func TestResultType(t *testing.T) {
	dec := schema.Type{Kind: schema.Decimal, Precision: 10, Scale: 2}
	for _, c := range []struct {
		t    Transform
		src  schema.Type
		want schema.Type
	}{
		{Identity, dec, dec},
		{Truncate(4), dec, dec},
		{Truncate(4), tString, tString},
		{Void, tFloat64, tFloat64},
		{Bucket(4), tString, tInt32},
		{Year, tDate, tInt32},
		{Month, tTimestamp, tInt32},
		{Day, tDate, tInt32},
		{Hour, tTimestamp, tInt32},
	} {
		got, err := c.t.ResultType(c.src)
		if err != nil || got != c.want {
			t.Errorf("%s.ResultType(%s) = %v, %v; want %v", c.t, c.src, got, err, c.want)
		}
	}
	if _, err := Hour.ResultType(tDate); !errors.Is(err, ErrTransformType) {
		t.Errorf("hour.ResultType(date): %v, want ErrTransformType", err)
	}
}
