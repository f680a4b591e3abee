package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/fxamacker/cbor/v2"
	gojson "github.com/goccy/go-json"
	"github.com/vmihailenco/msgpack/v5"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/source"
)

// DynamicNames lists the codecs that encode a user's own records (payload.source)
// from the schema at run time; the others need code generated from the schema.
func DynamicNames() []string {
	return []string{"json", "json/goccy", "avro", "protobuf", "msgpack", "cbor", "raw"}
}

// newDynamic returns a codec for a source's generic records. A record is what
// source.Normalize returns; Record gives that form back for every codec, so a
// round trip compares equal.
func newDynamic(name string, s *source.Set) (Codec, error) {
	switch name {
	case "json":
		return &dynJSON{name: name, marshal: json.Marshal, decoder: func(b []byte) decoder { return json.NewDecoder(bytes.NewReader(b)) }}, nil
	case "json/goccy":
		return &dynJSON{name: name, marshal: gojson.Marshal, decoder: func(b []byte) decoder { return gojson.NewDecoder(bytes.NewReader(b)) }}, nil
	case "msgpack":
		return &dynMsgpack{}, nil
	case "cbor":
		return newDynCBOR()
	case "raw":
		return dynRaw{}, nil
	case "avro":
		if s.Avro == nil {
			return nil, fmt.Errorf("codec avro needs an Avro schema (.avsc); payload.source is %s", s.Format)
		}
		return &dynAvro{s: s}, nil
	case "protobuf":
		if s.Message == nil {
			return nil, fmt.Errorf("codec protobuf needs a protobuf schema (.proto); payload.source is %s", s.Format)
		}
		return &dynProto{s: s}, nil
	}
	if _, err := New(name, payload.Types()[0]); err != nil {
		return nil, err // unknown codec
	}
	return nil, fmt.Errorf("codec %s needs code generated from the schema at build time and cannot encode payload.source records; "+
		"those work with %v", name, DynamicNames())
}

type decoder interface {
	UseNumber()
	Decode(v any) error
}

// dynJSON encodes the generic record as a JSON object (keys sorted, as encoding/json
// writes maps) and decodes numbers exactly.
type dynJSON struct {
	name    string
	marshal func(any) ([]byte, error)
	decoder func([]byte) decoder
}

func (c *dynJSON) Name() string                { return c.name }
func (c *dynJSON) Native(rec any) (any, error) { return rec, nil }
func (c *dynJSON) NewNative() any              { return nil }

// Record is the record as JSON keeps it: a whole float64 such as 100.0 is written
// 100 and reads back as an integer, so both sides of a round trip pass through the
// text form.
func (c *dynJSON) Record(native any) (any, error) {
	b, err := c.marshal(native)
	if err != nil {
		return nil, fmt.Errorf("%s: to record: %w", c.name, err)
	}
	return source.DecodeJSON(b)
}

func (c *dynJSON) Marshal(_ []byte, native any) ([]byte, error) {
	b, err := c.marshal(native)
	if err != nil {
		return nil, fmt.Errorf("%s marshal: %w", c.name, err)
	}
	return b, nil
}

func (c *dynJSON) Unmarshal(data []byte, _ any) (any, error) {
	d := c.decoder(data)
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s unmarshal: %w", c.name, err)
	}
	return v, nil
}

// dynMsgpack encodes the generic record with vmihailenco/msgpack, map keys sorted.
type dynMsgpack struct {
	w   appendWriter
	enc *msgpack.Encoder
}

func (c *dynMsgpack) Name() string                   { return "msgpack" }
func (c *dynMsgpack) Native(rec any) (any, error)    { return rec, nil }
func (c *dynMsgpack) Record(native any) (any, error) { return source.Normalize(native), nil }
func (c *dynMsgpack) NewNative() any                 { return nil }

func (c *dynMsgpack) Marshal(dst []byte, native any) ([]byte, error) {
	if c.enc == nil {
		c.enc = msgpack.NewEncoder(&c.w)
		c.enc.SetSortMapKeys(true)
	}
	c.w.b = dst[:0]
	if err := c.enc.Encode(native); err != nil {
		return nil, fmt.Errorf("msgpack marshal: %w", err)
	}
	return c.w.b, nil
}

func (c *dynMsgpack) Unmarshal(data []byte, _ any) (any, error) {
	var v any
	if err := msgpack.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("msgpack unmarshal: %w", err)
	}
	return v, nil
}

// dynCBOR encodes the generic record with fxamacker/cbor, map keys in the core
// deterministic order, and decodes maps with string keys.
type dynCBOR struct {
	em cbor.EncMode
	dm cbor.DecMode
}

func newDynCBOR() (*dynCBOR, error) {
	em, err := cbor.EncOptions{Sort: cbor.SortCoreDeterministic}.EncMode()
	if err != nil {
		return nil, err
	}
	dm, err := cbor.DecOptions{DefaultMapType: reflect.TypeOf(map[string]any(nil))}.DecMode()
	if err != nil {
		return nil, err
	}
	return &dynCBOR{em: em, dm: dm}, nil
}

func (c *dynCBOR) Name() string                   { return "cbor" }
func (c *dynCBOR) Native(rec any) (any, error)    { return rec, nil }
func (c *dynCBOR) Record(native any) (any, error) { return source.Normalize(native), nil }
func (c *dynCBOR) NewNative() any                 { return nil }

func (c *dynCBOR) Marshal(_ []byte, native any) ([]byte, error) {
	b, err := c.em.Marshal(native)
	if err != nil {
		return nil, fmt.Errorf("cbor marshal: %w", err)
	}
	return b, nil
}

func (c *dynCBOR) Unmarshal(data []byte, _ any) (any, error) {
	var v any
	if err := c.dm.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("cbor unmarshal: %w", err)
	}
	return v, nil
}

// dynRaw sends the record's compact JSON as it is.
type dynRaw struct{}

func (dynRaw) Name() string   { return "raw" }
func (dynRaw) NewNative() any { return []byte(nil) }

func (dynRaw) Native(rec any) (any, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("raw: encode record: %w", err)
	}
	return b, nil
}

func (dynRaw) Record(native any) (any, error) {
	return source.DecodeJSON(native.([]byte))
}

func (dynRaw) Marshal(dst []byte, native any) ([]byte, error) {
	return append(dst[:0], native.([]byte)...), nil
}

func (dynRaw) Unmarshal(data []byte, into any) (any, error) {
	return append(into.([]byte)[:0], data...), nil
}

// dynAvro uses goavro with the source's .avsc; natives are goavro's, built from the
// record's plain JSON.
type dynAvro struct{ s *source.Set }

func (c *dynAvro) Name() string   { return "avro" }
func (c *dynAvro) NewNative() any { return nil }

func (c *dynAvro) Native(rec any) (any, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("avro: encode record: %w", err)
	}
	native, _, err := c.s.Avro.NativeFromTextual(b)
	if err != nil {
		return nil, fmt.Errorf("avro: record does not fit the schema: %w", err)
	}
	return native, nil
}

func (c *dynAvro) Record(native any) (any, error) {
	b, err := c.s.Avro.TextualFromNative(nil, native)
	if err != nil {
		return nil, fmt.Errorf("avro: to record: %w", err)
	}
	return source.DecodeJSON(b)
}

func (c *dynAvro) Marshal(dst []byte, native any) ([]byte, error) {
	b, err := c.s.Avro.BinaryFromNative(dst[:0], native)
	if err != nil {
		return nil, fmt.Errorf("avro marshal: %w", err)
	}
	return b, nil
}

func (c *dynAvro) Unmarshal(data []byte, _ any) (any, error) {
	native, _, err := c.s.Avro.NativeFromBinary(data)
	if err != nil {
		return nil, fmt.Errorf("avro unmarshal: %w", err)
	}
	return native, nil
}

// dynProto uses dynamicpb messages of the source's .proto, filled from the record's
// JSON by protojson.
type dynProto struct{ s *source.Set }

func (c *dynProto) Name() string   { return "protobuf" }
func (c *dynProto) NewNative() any { return dynamicpb.NewMessage(c.s.Message) }

func (c *dynProto) Native(rec any) (any, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("protobuf: encode record: %w", err)
	}
	m := dynamicpb.NewMessage(c.s.Message)
	if err := protojson.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("protobuf: record does not fit message %s: %w", c.s.Message.FullName(), err)
	}
	return m, nil
}

func (c *dynProto) Record(native any) (any, error) {
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(native.(proto.Message))
	if err != nil {
		return nil, fmt.Errorf("protobuf: to record: %w", err)
	}
	return source.DecodeJSON(b)
}

func (c *dynProto) Marshal(dst []byte, native any) ([]byte, error) {
	b, err := proto.MarshalOptions{}.MarshalAppend(dst[:0], native.(proto.Message))
	if err != nil {
		return nil, fmt.Errorf("protobuf marshal: %w", err)
	}
	return b, nil
}

func (c *dynProto) Unmarshal(data []byte, into any) (any, error) {
	m := into.(proto.Message)
	proto.Reset(m)
	if err := proto.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("protobuf unmarshal: %w", err)
	}
	return m, nil
}
