package codec_test

import (
	"bytes"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/payload"
)

var sizes = []int{1176, 4696, 9312}

// roundTrip encodes rec with c and decodes it back into a logical record.
func roundTrip(t *testing.T, c codec.Codec, rec any) any {
	t.Helper()
	data := encode(t, c, rec)
	var err error
	// Decode twice into one reused target: the second decode must not keep anything
	// from the first.
	into := c.NewNative()
	if into, err = c.Unmarshal(data, into); err != nil {
		t.Fatalf("%s unmarshal: %v", c.Name(), err)
	}
	if into, err = c.Unmarshal(data, into); err != nil {
		t.Fatalf("%s unmarshal again: %v", c.Name(), err)
	}
	out, err := c.Record(into)
	if err != nil {
		t.Fatalf("%s record: %v", c.Name(), err)
	}
	return out
}

// equalOpts holds what a format cannot represent. Protobuf, Avro and Thrift cannot
// tell a nil collection from an empty one; gob omits zero values, so it cannot tell
// them apart either, nor a pointer to a zero value from nil. JSON, MessagePack (both
// libraries: msgp's fields are tagged allownil), CBOR, Cap'n Proto and FlatBuffers
// keep every difference.
func equalOpts(codecName string) []cmp.Option {
	format, _, _ := strings.Cut(codecName, "/") // a variant shares its format's limits
	switch format {
	case "protobuf", "avro", "thrift-binary", "thrift-compact":
		return []cmp.Option{cmpopts.EquateEmpty()}
	case "gob":
		return []cmp.Option{cmpopts.EquateEmpty(), zeroPointerIsNil[string](), zeroPointerIsNil[float64](), zeroPointerIsNil[int64]()}
	}
	return nil
}

// zeroPointerIsNil compares a pointer to T's zero value as nil.
func zeroPointerIsNil[T comparable]() cmp.Option {
	return cmp.Transformer("zeroPointerIsNil", func(p *T) *T {
		var zero T
		if p != nil && *p == zero {
			return nil
		}
		return p
	})
}

func TestRoundTripGeneratedRecords(t *testing.T) {
	for _, schemaName := range payload.Structured() {
		schema, err := payload.Lookup(schemaName)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range sizes {
			pool, err := schema.Pool(7, size, 20)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range codec.Names() {
				c, err := newCodec(t, name, schema.TypeFor(size))
				if err != nil {
					t.Fatal(err)
				}
				for i, rec := range pool {
					got := roundTrip(t, c, rec)
					if d := cmp.Diff(rec, got, equalOpts(name)...); d != "" {
						t.Fatalf("%s/%d/%s record %d: round trip differs (-want +got):\n%s", schemaName, size, name, i, d)
					}
				}
			}
		}
	}
}

func TestRoundTripEdgeValues(t *testing.T) {
	for _, name := range codec.Names() {
		for label, rec := range edgeRecords() {
			schemaName, size := label[0], 1176
			schema, err := payload.Lookup(schemaName)
			if err != nil {
				t.Fatal(err)
			}
			c, err := newCodec(t, name, schema.TypeFor(size))
			if err != nil {
				t.Fatal(err)
			}
			got := roundTrip(t, c, rec)
			if d := cmp.Diff(rec, got, equalOpts(name)...); d != "" {
				t.Errorf("%s %s: round trip differs (-want +got):\n%s", name, label[1], d)
			}
		}
	}
}

// edgeRecords maps {schema, case} to records holding edge values.
func edgeRecords() map[[2]string]any {
	str := func(s string) *string { return &s }
	f64 := func(f float64) *float64 { return &f }
	tm := func(t time.Time) *time.Time { return &t }
	i64 := func(i int64) *int64 { return &i }
	out := map[[2]string]any{
		{"simple", "empty string, min ints"}: &payload.Simple{Timestamp: math.MinInt64, Query: "", PageNumber: math.MinInt32, ResultPerPage: math.MinInt32},
		{"simple", "unicode, max ints"}:      &payload.Simple{Timestamp: math.MaxInt64, Query: "héllo wörld ✓ 日本語 🚀 \"quoted\" \\ <tag>&", PageNumber: math.MaxInt32, ResultPerPage: 0},
		{"complex", "nil collections"}:       &payload.Complex{Timestamp: 0},
		{"complex", "empty collections"}:     &payload.Complex{Storage: map[string]int32{}, Arr: []int32{}},
		{"complex", "edge entries"}: &payload.Complex{Timestamp: -1, Storage: map[string]int32{"": 0, "ключ": math.MaxInt32, "🔑": math.MinInt32},
			Arr: []int32{math.MinInt32, -1, 0, 1, math.MaxInt32}},
		{"nested", "nil nested"}:  &payload.Nested{Timestamp: 1, ID: math.MinInt32},
		{"nested", "set nested"}:  &payload.Nested{Timestamp: 2, ID: math.MaxInt32, SimpleMsg: &payload.Simple{Query: "ünïcode"}},
		{"nested", "zero nested"}: &payload.Nested{SimpleMsg: &payload.Simple{}},
	}
	// Business records: every column at an edge. Times are at microsecond precision
	// (Avro's timestamp-micros) and inside the range every format represents.
	min := &payload.BusinessRecordS{}
	max := &payload.BusinessRecordS{}
	setAll(reflect.ValueOf(min).Elem(), map[reflect.Type]any{
		reflect.TypeOf(int64(0)):          int64(math.MinInt64),
		reflect.TypeOf(int32(0)):          int32(math.MinInt32),
		reflect.TypeOf(float64(0)):        -math.MaxFloat64,
		reflect.TypeOf(""):                "",
		reflect.TypeOf(false):             false,
		reflect.TypeOf(time.Time{}):       time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC),
		reflect.TypeOf((*string)(nil)):    str(""),
		reflect.TypeOf((*float64)(nil)):   f64(math.SmallestNonzeroFloat64),
		reflect.TypeOf((*time.Time)(nil)): tm(time.Unix(0, 0).UTC()),
		reflect.TypeOf((*int64)(nil)):     i64(math.MinInt64),
	})
	setAll(reflect.ValueOf(max).Elem(), map[reflect.Type]any{
		reflect.TypeOf(int64(0)):          int64(math.MaxInt64),
		reflect.TypeOf(int32(0)):          int32(math.MaxInt32),
		reflect.TypeOf(float64(0)):        math.MaxFloat64,
		reflect.TypeOf(""):                "日本語 ✓ émoji 🚀 \u0000 control \t\n",
		reflect.TypeOf(false):             true,
		reflect.TypeOf(time.Time{}):       time.Date(2200, 12, 31, 23, 59, 59, 999999000, time.UTC),
		reflect.TypeOf((*string)(nil)):    str("ñ"),
		reflect.TypeOf((*float64)(nil)):   f64(-0.1),
		reflect.TypeOf((*time.Time)(nil)): tm(time.Date(1969, 12, 31, 23, 59, 59, 1000, time.UTC)),
		reflect.TypeOf((*int64)(nil)):     i64(math.MaxInt64),
	})
	out[[2]string{"business-record", "minimum values"}] = min
	out[[2]string{"business-record", "maximum values"}] = max
	out[[2]string{"business-record", "all zero and null"}] = &payload.BusinessRecordS{}
	return out
}

func setAll(v reflect.Value, byType map[reflect.Type]any) {
	for i := range v.NumField() {
		val, ok := byType[v.Field(i).Type()]
		if !ok {
			panic("no edge value for " + v.Field(i).Type().String())
		}
		v.Field(i).Set(reflect.ValueOf(val))
	}
}

func TestUnknownCodec(t *testing.T) {
	schema, _ := payload.Lookup("simple")
	if _, err := codec.New("xml", schema.TypeFor(100)); err == nil {
		t.Fatal("want error for unknown codec")
	}
}

// TestRuntimeCodecs: the Go runtime's row of api/trial.Runtimes, which admission
// reads, lists exactly the codecs this package has.
func TestRuntimeCodecs(t *testing.T) {
	var goCodecs []string
	for _, k := range trial.RuntimeGo.Codecs() {
		goCodecs = append(goCodecs, string(k))
	}
	names := codec.Names()
	slices.Sort(names)
	slices.Sort(goCodecs)
	if !slices.Equal(names, goCodecs) {
		t.Fatalf("codec.Names()\n%v\nthe Go runtime's codecs (api/trial.Runtimes)\n%v", names, goCodecs)
	}
}

// TestUnmarshalGarbage: a truncated or corrupted value never panics in any codec (a
// consumer must survive a foreign record), and half a value is an error in every
// codec that can tell (TestHostileLengths covers counts that claim gigabytes).
func TestUnmarshalGarbage(t *testing.T) {
	for _, schemaName := range payload.Structured() {
		schema, _ := payload.Lookup(schemaName)
		pool, err := schema.Pool(3, 1176, 4)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range codec.Names() {
			c, err := newCodec(t, name, schema.TypeFor(1176))
			if err != nil {
				t.Fatal(err)
			}
			native, _ := c.Native(pool[0])
			good, err := c.Marshal(nil, native)
			if err != nil {
				t.Fatal(err)
			}
			var inputs [][]byte
			for n := 0; n < len(good); n += 1 + len(good)/64 {
				inputs = append(inputs, good[:n])
			}
			for i := range 256 {
				bad := append([]byte(nil), good...)
				bad[(i*7919)%len(bad)] ^= byte(1 + i%255)
				bad[(i*104729)%len(bad)] = 0xff
				inputs = append(inputs, bad)
			}
			for i, in := range inputs {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s/%s input %d (%d B): panic: %v", schemaName, name, i, len(in), r)
						}
					}()
					_, _ = c.Unmarshal(in, c.NewNative())
				}()
			}
		}
	}
}

// TestHostileLengths: values whose counts claim billions of entries, or whose packed
// zero runs expand past any real record, are errors that allocate little: the
// limits each library offers are set (codec.maxElements, maxValueBytes).
func TestHostileLengths(t *testing.T) {
	complexType := payload.Types()[1] // ComplexMessage: timestamp, storage, arr
	// Avro: timestamp 0, an empty map, then an array block of 2^30 entries.
	avroBomb := []byte{0x00, 0x00, 0x80, 0x80, 0x80, 0x80, 0x08}
	// msgp: a map of one field, "arr", holding an array32 of 2^31-1 entries.
	msgpBomb := []byte{0x81, 0xa3, 'a', 'r', 'r', 0xdd, 0x7f, 0xff, 0xff, 0xff}
	// Packed Cap'n Proto: a frame of one 1 GiB segment, then 1 MiB of zero runs,
	// each pair claiming 256 words (1 GiB unpacked).
	packedBomb := append([]byte{0x80, 0x08}, bytes.Repeat([]byte{0x00, 0xff}, 1<<19)...)
	// A frame whose root lies in an empty segment: capnp panics on it.
	emptyRoot := make([]byte, 8)
	for name, data := range map[string][]byte{"avro": avroBomb, "avro/hamba": avroBomb, "msgpack/msgp": msgpBomb,
		"capnproto-packed": packedBomb, "capnproto": emptyRoot} {
		c, err := codec.New(name, complexType)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = c.Unmarshal(data, c.NewNative())
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: a hostile count decoded without an error", name)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 128<<20 {
			t.Errorf("%s: allocated %d MiB refusing it", name, d>>20)
		}
	}
}
