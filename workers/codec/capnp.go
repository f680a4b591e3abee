package codec

import (
	"bytes"
	"fmt"

	capnp "capnproto.org/go/capnp/v3"

	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/payload/capnpgen"
)

// capnpCodec uses capnproto.org/go/capnp/v3 with the code capnpc-go generated from
// workers/payload/capnpgen/payload.capnp, framed as one single-segment message per
// record, unpacked or packed. Marshal builds the message from the payload struct in
// a pooled arena; Unmarshal reads every field back (as for FlatBuffers, the
// zero-copy reader alone would time nothing).
type capnpCodec struct {
	name   string
	t      payload.Type
	fn     capnpgen.Funcs
	packed bool
}

func newCapnp(name string, t payload.Type, packed bool) (*capnpCodec, error) {
	fn, ok := capnpgen.ByName[t.Name]
	if !ok {
		return nil, fmt.Errorf("%s: no struct for %s", name, t.Name)
	}
	return &capnpCodec{name: name, t: t, fn: fn, packed: packed}, nil
}

func (c *capnpCodec) Name() string                   { return c.name }
func (c *capnpCodec) Native(rec any) (any, error)    { return rec, nil }
func (c *capnpCodec) Record(native any) (any, error) { return native, nil }
func (c *capnpCodec) NewNative() any                 { return c.t.New() }

func (c *capnpCodec) Marshal(dst []byte, native any) ([]byte, error) {
	// SingleSegment(nil) takes its buffer from capnp's pool; Release returns it.
	msg, seg, err := capnp.NewMessage(capnp.SingleSegment(nil))
	if err != nil {
		return nil, fmt.Errorf("%s marshal: %w", c.name, err)
	}
	defer msg.Release()
	if err := c.fn.Build(seg, native); err != nil {
		return nil, fmt.Errorf("%s marshal: %w", c.name, err)
	}
	var b []byte
	if c.packed {
		b, err = msg.MarshalPacked()
	} else {
		b, err = msg.Marshal()
	}
	if err != nil {
		return nil, fmt.Errorf("%s marshal: %w", c.name, err)
	}
	return b, nil
}

func (c *capnpCodec) Unmarshal(data []byte, into any) (rec any, err error) {
	// capnp panics on some malformed messages (a root in an empty segment).
	defer recoverCorrupt(c.name, &rec, &err)
	var msg *capnp.Message
	if c.packed {
		// The bounded decoder: UnmarshalPacked expands zero runs without a limit
		// (2 bytes can claim 2 KiB), so a corrupt value could claim gigabytes.
		dec := capnp.NewPackedDecoder(bytes.NewReader(data))
		dec.MaxMessageSize = maxValueBytes
		msg, err = dec.Decode()
	} else {
		// The message reads data in place; it is not released, as data is the
		// caller's buffer and must not go into capnp's pool.
		msg, err = capnp.Unmarshal(data)
	}
	if err != nil {
		return nil, fmt.Errorf("%s unmarshal: %w", c.name, err)
	}
	resetStruct(into)
	if err := c.fn.Read(msg, into); err != nil {
		return nil, fmt.Errorf("%s unmarshal: %w", c.name, err)
	}
	return into, nil
}
