package codec

import (
	"bytes"
	"encoding/gob"
	"fmt"

	"github.com/serdebench/serdebench/workers/payload"
)

// gobCodec uses encoding/gob, Go's language-native serialization (the analogue of the
// Java serializer thesis' java.io serialization). Every Kafka value must decode on
// its own, so each record is a fresh gob stream carrying its type description, as
// each Java ObjectOutputStream record carries its class descriptor. gob omits zero
// values: a pointer to a zero value decodes as nil, an empty map or slice as nil.
type gobCodec struct {
	t payload.Type
	w appendWriter
	r bytes.Reader
}

func newGob(t payload.Type) *gobCodec { return &gobCodec{t: t} }

func (c *gobCodec) Name() string                   { return "gob" }
func (c *gobCodec) Native(rec any) (any, error)    { return rec, nil }
func (c *gobCodec) Record(native any) (any, error) { return native, nil }
func (c *gobCodec) NewNative() any                 { return c.t.New() }

func (c *gobCodec) Marshal(dst []byte, native any) ([]byte, error) {
	c.w.b = dst[:0]
	if err := gob.NewEncoder(&c.w).Encode(native); err != nil {
		return nil, fmt.Errorf("gob marshal: %w", err)
	}
	return c.w.b, nil
}

func (c *gobCodec) Unmarshal(data []byte, into any) (any, error) {
	resetStruct(into)
	c.r.Reset(data)
	if err := gob.NewDecoder(&c.r).Decode(into); err != nil {
		return nil, fmt.Errorf("gob unmarshal: %w", err)
	}
	return into, nil
}
