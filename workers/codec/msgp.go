package codec

import (
	"fmt"

	"github.com/tinylib/msgp/msgp"

	"github.com/serdebench/serdebench/workers/payload"
)

// msgpCodec is the msgpack/msgp variant: the MarshalMsg and UnmarshalMsg methods
// tinylib/msgp generates for the payload structs (workers/payload/*_msgp.go), with
// the same field names and the standard timestamp extension as vmihailenco/msgpack.
type msgpCodec struct{ t payload.Type }

type msgpRecord interface {
	msgp.Marshaler
	msgp.Unmarshaler
}

func newMsgp(t payload.Type) (*msgpCodec, error) {
	if _, ok := t.New().(msgpRecord); !ok {
		return nil, fmt.Errorf("msgpack/msgp: %s has no generated msgp methods (make generate)", t.Name)
	}
	return &msgpCodec{t: t}, nil
}

func (c *msgpCodec) Name() string                   { return "msgpack/msgp" }
func (c *msgpCodec) Native(rec any) (any, error)    { return rec, nil }
func (c *msgpCodec) Record(native any) (any, error) { return native, nil }
func (c *msgpCodec) NewNative() any                 { return c.t.New() }

func (c *msgpCodec) Marshal(dst []byte, native any) ([]byte, error) {
	b, err := native.(msgpRecord).MarshalMsg(dst[:0])
	if err != nil {
		return nil, fmt.Errorf("msgpack/msgp marshal: %w", err)
	}
	return b, nil
}

func (c *msgpCodec) Unmarshal(data []byte, into any) (any, error) {
	resetStruct(into)
	rest, err := into.(msgpRecord).UnmarshalMsg(data)
	if err != nil {
		return nil, fmt.Errorf("msgpack/msgp unmarshal: %w", err)
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("msgpack/msgp unmarshal: %d bytes after the record", len(rest))
	}
	return into, nil
}
