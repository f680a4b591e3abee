package codec

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/serdebench/serdebench/workers/payload"
)

// jsonCodec uses encoding/json on the payload struct itself.
type jsonCodec struct{ t payload.Type }

func newJSON(t payload.Type) *jsonCodec { return &jsonCodec{t: t} }

func (c *jsonCodec) Name() string                { return "json" }
func (c *jsonCodec) Native(rec any) (any, error) { return rec, nil }
func (c *jsonCodec) NewNative() any              { return c.t.New() }

func (c *jsonCodec) Record(native any) (any, error) { return native, nil }

func (c *jsonCodec) Marshal(_ []byte, native any) ([]byte, error) {
	// json.Marshal cannot append; its own allocation is part of what is measured.
	b, err := json.Marshal(native)
	if err != nil {
		return nil, fmt.Errorf("json marshal: %w", err)
	}
	return b, nil
}

func (c *jsonCodec) Unmarshal(data []byte, into any) (any, error) {
	resetStruct(into)
	if err := json.Unmarshal(data, into); err != nil {
		return nil, fmt.Errorf("json unmarshal: %w", err)
	}
	return into, nil
}

// resetStruct zeroes the struct p points to, so a reused target holds only what the
// next decode writes (json and msgpack merge into existing values otherwise).
func resetStruct(p any) {
	v := reflect.ValueOf(p).Elem()
	v.SetZero()
}
