package partition

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

var testSchema = &schema.Schema{ID: 3, Columns: []schema.Column{
	{ID: 1, Name: "id", Type: schema.Type{Kind: schema.Int64}},
	{ID: 2, Name: "name", Type: schema.Type{Kind: schema.String}},
	{ID: 3, Name: "ts", Type: schema.Type{Kind: schema.Timestamp}},
	{ID: 4, Name: "d", Type: schema.Type{Kind: schema.Date}},
	{ID: 5, Name: "price", Type: schema.Type{Kind: schema.Decimal, Precision: 10, Scale: 2}},
	{ID: 6, Name: "doc", Type: schema.Type{Kind: schema.JSON}},
	{ID: 7, Name: "score", Type: schema.Type{Kind: schema.Float64}},
	{ID: 8, Name: "big", Type: schema.Type{Kind: schema.Uint64}},
}}

func TestSpec_JSON(t *testing.T) {
	spec := Spec{ID: 1, Fields: []Field{
		{SourceID: 3, FieldID: 1000, Name: "ts_day", Transform: Day},
		{SourceID: 1, FieldID: 1001, Name: "id_bucket_16", Transform: Bucket(16)},
		{SourceID: 2, FieldID: 1002, Name: "name", Transform: Identity},
		{SourceID: 5, FieldID: 1003, Name: "price_trunc_50", Transform: Truncate(50)},
	}}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"spec-id":1,"fields":[` +
		`{"source-id":3,"field-id":1000,"name":"ts_day","transform":"day"},` +
		`{"source-id":1,"field-id":1001,"name":"id_bucket_16","transform":"bucket[16]"},` +
		`{"source-id":2,"field-id":1002,"name":"name","transform":"identity"},` +
		`{"source-id":5,"field-id":1003,"name":"price_trunc_50","transform":"truncate[50]"}]}`
	if string(b) != want {
		t.Fatalf("json:\n got %s\nwant %s", b, want)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, spec) {
		t.Fatalf("round trip: %+v, want %+v", back, spec)
	}
	if err := spec.Validate(testSchema); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"spec-id":1,"fields":[{"source-id":1,"field-id":1000,"name":"x","transform":"bucket[0]"}]}`), &back); !errors.Is(err, ErrBadTransform) {
		t.Fatalf("unmarshal bucket[0]: %v, want ErrBadTransform", err)
	}
	if _, err := json.Marshal(Field{Name: "x"}); !errors.Is(err, ErrBadTransform) {
		t.Fatalf("marshal zero transform: %v, want ErrBadTransform", err)
	}
}

func TestSpec_Validate_TypeRefusalMessages(t *testing.T) {
	for _, c := range []struct {
		name string
		src  int
		t    Transform
		msg  string
	}{
		{"day/string", 2, Day, `partition field "p": transform day cannot apply to column "name" of type string (day accepts: date, timestamp)`},
		{"hour/date", 4, Hour, `partition field "p": transform hour cannot apply to column "d" of type date (hour accepts: timestamp)`},
		{"bucket/float64", 7, Bucket(16), `partition field "p": transform bucket[16] cannot apply to column "score" of type float64 (bucket accepts: int8, int16, int32, int64, uint8, uint16, uint32, decimal(P,S), date, time, timestamp, string, binary)`},
		{"bucket/uint64", 8, Bucket(4), `partition field "p": transform bucket[4] cannot apply to column "big" of type uint64 (bucket accepts: int8, int16, int32, int64, uint8, uint16, uint32, decimal(P,S), date, time, timestamp, string, binary)`},
		{"truncate/timestamp", 3, Truncate(10), `partition field "p": transform truncate[10] cannot apply to column "ts" of type timestamp (truncate accepts: int8, int16, int32, int64, uint8, uint16, uint32, decimal(P,S), string, binary)`},
		{"identity/json", 6, Identity, `partition field "p": transform identity cannot apply to column "doc" of type json (identity accepts: boolean, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, decimal(P,S), string, binary, date, time, timestamp)`},
		{"year/decimal", 5, Year, `partition field "p": transform year cannot apply to column "price" of type decimal(10,2) (year accepts: date, timestamp)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := Spec{Fields: []Field{{SourceID: c.src, FieldID: 1000, Name: "p", Transform: c.t}}}
			err := spec.Validate(testSchema)
			if !errors.Is(err, ErrTransformType) {
				t.Fatalf("Validate: %v, want ErrTransformType", err)
			}
			var te *TransformTypeError
			if !errors.As(err, &te) || te.Transform != c.t {
				t.Fatalf("Validate: %v is not a *TransformTypeError for %s", err, c.t)
			}
			if err.Error() != c.msg {
				t.Fatalf("message:\n got %s\nwant %s", err, c.msg)
			}
		})
	}
	_, err := Day.Apply(tString, "x")
	if want := `transform day cannot apply to type string (day accepts: date, timestamp)`; err == nil || err.Error() != want {
		t.Fatalf("Apply message: %v, want %s", err, want)
	}
}

func TestSpec_Validate_Refused(t *testing.T) {
	f := func(src, id int, name string, tr Transform) Field {
		return Field{SourceID: src, FieldID: id, Name: name, Transform: tr}
	}
	for _, c := range []struct {
		name   string
		fields []Field
		want   error
	}{
		{"unknown-column", []Field{f(99, 1000, "x", Identity)}, ErrUnknownColumn},
		{"zero-transform", []Field{f(1, 1000, "x", Transform{})}, ErrBadTransform},
		{"field-id-below-1000", []Field{f(1, 999, "x", Identity)}, ErrBadSpec},
		{"field-id-twice", []Field{f(1, 1000, "a", Identity), f(2, 1000, "b", Identity)}, ErrBadSpec},
		{"empty-name", []Field{f(1, 1000, " ", Identity)}, ErrBadSpec},
		{"name-twice", []Field{f(1, 1000, "p", Identity), f(2, 1001, "P", Identity)}, ErrBadSpec},
		{"name-hides-other-column", []Field{f(3, 1000, "name", Day)}, ErrBadSpec},
		{"name-of-own-column-not-identity", []Field{f(3, 1000, "ts", Day)}, ErrBadSpec},
		{"same-transform-twice", []Field{f(3, 1000, "a", Day), f(3, 1001, "b", Day)}, ErrBadSpec},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Spec{ID: 1, Fields: c.fields}.Validate(testSchema)
			if !errors.Is(err, c.want) {
				t.Fatalf("Validate: %v, want %v", err, c.want)
			}
		})
	}
	ok := Spec{Fields: []Field{
		{SourceID: 3, FieldID: 1000, Name: "ts_day", Transform: Day},
		{SourceID: 3, FieldID: 1001, Name: "ts_hour", Transform: Hour},
		{SourceID: 1, FieldID: 1002, Name: "id", Transform: Identity},
		{SourceID: 6, FieldID: 1003, Name: "doc_null", Transform: Void},
	}}
	if err := ok.Validate(testSchema); err != nil {
		t.Fatalf("valid spec refused: %v", err)
	}
	if err := (Spec{}).Validate(testSchema); err != nil {
		t.Fatalf("unpartitioned spec refused: %v", err)
	}
}

func TestDefaultName(t *testing.T) {
	for tr, want := range map[Transform]string{
		Identity: "ts", Bucket(16): "ts_bucket_16", Truncate(4): "ts_trunc_4",
		Year: "ts_year", Month: "ts_month", Day: "ts_day", Hour: "ts_hour", Void: "ts_null",
	} {
		if got := DefaultName("ts", tr); got != want {
			t.Errorf("DefaultName(ts, %s) = %q, want %q", tr, got, want)
		}
	}
}
