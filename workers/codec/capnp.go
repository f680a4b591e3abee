package codec

import (
	"errors"
	"fmt"
	"math/bits"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/packed"

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
	// unpacked is the packed codec's buffer for the unpacked message, reused.
	unpacked []byte
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
		// What UnmarshalPacked does (Unpack, then Unmarshal), with the unpacked size
		// bounded first: zero runs expand without a limit (2 bytes claim 2 KiB), so a
		// corrupt value could claim gigabytes. capnp's bounded NewPackedDecoder would
		// add a 4 KiB reader and word-by-word unpacking to every record's timing.
		if err := checkUnpackedSize(data); err != nil {
			return nil, fmt.Errorf("%s unmarshal: %w", c.name, err)
		}
		if c.unpacked, err = packed.Unpack(c.unpacked[:0], data); err == nil {
			msg, err = capnp.Unmarshal(c.unpacked) // read in place; Read copies every field out
		}
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

// checkUnpackedSize reads a packed message's tags (Cap'n Proto encoding spec,
// "Packing") and refuses one that unpacks to more than maxValueBytes: a tag's
// literal bytes make one word; tag 0x00 is followed by a count of further zero
// words, tag 0xff by a count of further literal words.
func checkUnpackedSize(src []byte) error {
	size := 0
	for i := 0; i < len(src); {
		tag := src[i]
		i += 1 + bits.OnesCount8(tag)
		size += 8
		if tag == 0x00 || tag == 0xff {
			if i >= len(src) {
				return errors.New("packed message truncated")
			}
			n := int(src[i])
			i++
			size += 8 * n
			if tag == 0xff {
				i += 8 * n
			}
		}
		if size > maxValueBytes {
			return fmt.Errorf("packed message unpacks to more than %d B", maxValueBytes)
		}
	}
	return nil
}
