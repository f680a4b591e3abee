package codec

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/serdebench/serdebench/workers/payload"
)

// msgpackCodec uses vmihailenco/msgpack on the payload struct (fields as a map keyed
// by name, the library's default and the format's common use).
type msgpackCodec struct {
	t   payload.Type
	w   appendWriter
	enc *msgpack.Encoder
}

// appendWriter lets the encoder append straight into the caller's buffer.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// WriteByte is used by msgpack for single-byte codes, avoiding a slice per call.
func (w *appendWriter) WriteByte(c byte) error { w.b = append(w.b, c); return nil }

// WriteString avoids a conversion for string fields.
func (w *appendWriter) WriteString(s string) (int, error) {
	w.b = append(w.b, s...)
	return len(s), nil
}

func newMsgpack(t payload.Type) *msgpackCodec {
	c := &msgpackCodec{t: t}
	c.enc = msgpack.NewEncoder(&c.w)
	return c
}

func (c *msgpackCodec) Name() string                   { return "msgpack" }
func (c *msgpackCodec) Native(rec any) (any, error)    { return rec, nil }
func (c *msgpackCodec) Record(native any) (any, error) { return native, nil }
func (c *msgpackCodec) NewNative() any                 { return c.t.New() }

func (c *msgpackCodec) Marshal(dst []byte, native any) ([]byte, error) {
	c.w.b = dst[:0]
	if err := c.enc.Encode(native); err != nil {
		return nil, fmt.Errorf("msgpack marshal: %w", err)
	}
	return c.w.b, nil
}

func (c *msgpackCodec) Unmarshal(data []byte, into any) (any, error) {
	resetStruct(into)
	if err := msgpack.Unmarshal(data, into); err != nil {
		return nil, fmt.Errorf("msgpack unmarshal: %w", err)
	}
	return into, nil
}
