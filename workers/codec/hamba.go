package codec

import (
	"fmt"
	"reflect"

	"github.com/hamba/avro/v2"

	"github.com/serdebench/serdebench/workers/payload"
)

// hambaCodec is the avro/hamba variant: hamba/avro with the same schema as the
// goavro codec (AvroSchema), encoding the payload struct directly (its json tags
// name the fields) instead of goavro's map form. The bytes are the same Avro
// binary encoding.
type hambaCodec struct {
	t      payload.Type
	schema avro.Schema
	api    avro.API
}

func newHamba(t payload.Type) (*hambaCodec, error) {
	js, err := AvroSchema(reflect.TypeOf(t.New()).Elem())
	if err != nil {
		return nil, err
	}
	// A fresh cache per codec: hamba's default cache keys by full name, and the
	// business variants share none, but a codec owns its schema either way.
	schema, err := avro.ParseWithCache(js, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("avro/hamba: parse schema for %s: %w", t.Name, err)
	}
	// List entries bounded like goavro's (avro.go); strings and bytes keep hamba's
	// 1 MiB default, above any payload's string.
	api := avro.Config{TagKey: "json", MaxSliceAllocSize: maxElements}.Freeze()
	return &hambaCodec{t: t, schema: schema, api: api}, nil
}

func (c *hambaCodec) Name() string                   { return "avro/hamba" }
func (c *hambaCodec) Native(rec any) (any, error)    { return rec, nil }
func (c *hambaCodec) Record(native any) (any, error) { return native, nil }
func (c *hambaCodec) NewNative() any                 { return c.t.New() }

func (c *hambaCodec) Marshal(_ []byte, native any) ([]byte, error) {
	b, err := c.api.Marshal(c.schema, native)
	if err != nil {
		return nil, fmt.Errorf("avro/hamba marshal: %w", err)
	}
	return b, nil
}

func (c *hambaCodec) Unmarshal(data []byte, into any) (any, error) {
	resetStruct(into)
	if err := c.api.Unmarshal(c.schema, data, into); err != nil {
		return nil, fmt.Errorf("avro/hamba unmarshal: %w", err)
	}
	return into, nil
}
