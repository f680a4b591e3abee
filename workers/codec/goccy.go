package codec

import (
	"fmt"

	gojson "github.com/goccy/go-json"

	"github.com/serdebench/serdebench/workers/payload"
)

// goccyCodec is the json/goccy variant: goccy/go-json, a drop-in replacement for
// encoding/json, on the same payload struct.
type goccyCodec struct{ t payload.Type }

func newGoccy(t payload.Type) *goccyCodec { return &goccyCodec{t: t} }

func (c *goccyCodec) Name() string                   { return "json/goccy" }
func (c *goccyCodec) Native(rec any) (any, error)    { return rec, nil }
func (c *goccyCodec) NewNative() any                 { return c.t.New() }
func (c *goccyCodec) Record(native any) (any, error) { return native, nil }

func (c *goccyCodec) Marshal(_ []byte, native any) ([]byte, error) {
	b, err := gojson.Marshal(native)
	if err != nil {
		return nil, fmt.Errorf("json/goccy marshal: %w", err)
	}
	return b, nil
}

func (c *goccyCodec) Unmarshal(data []byte, into any) (any, error) {
	resetStruct(into)
	if err := gojson.Unmarshal(data, into); err != nil {
		return nil, fmt.Errorf("json/goccy unmarshal: %w", err)
	}
	return into, nil
}
