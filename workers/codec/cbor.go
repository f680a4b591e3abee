package codec

import (
	"bytes"
	"fmt"

	"github.com/fxamacker/cbor/v2"

	"github.com/serdebench/serdebench/workers/payload"
)

// cborCodec uses fxamacker/cbor on the payload struct (a map keyed by the json names,
// like msgpack). Times are RFC 3339 strings with nanoseconds under tag 0, the exact
// form RFC 8949 defines: its numeric form is a float that loses microseconds far
// from 1970.
type cborCodec struct {
	t  payload.Type
	em cbor.UserBufferEncMode
	dm cbor.DecMode
}

var (
	cborEnc = func() cbor.UserBufferEncMode {
		em, err := cbor.EncOptions{Time: cbor.TimeRFC3339NanoUTC, TimeTag: cbor.EncTagRequired}.UserBufferEncMode()
		if err != nil {
			panic(err) // the options are constant
		}
		return em
	}()
	cborDec = func() cbor.DecMode {
		dm, err := cbor.DecOptions{}.DecMode()
		if err != nil {
			panic(err)
		}
		return dm
	}()
)

func newCBOR(t payload.Type) *cborCodec { return &cborCodec{t: t, em: cborEnc, dm: cborDec} }

func (c *cborCodec) Name() string                   { return "cbor" }
func (c *cborCodec) Native(rec any) (any, error)    { return rec, nil }
func (c *cborCodec) Record(native any) (any, error) { return native, nil }
func (c *cborCodec) NewNative() any                 { return c.t.New() }

func (c *cborCodec) Marshal(dst []byte, native any) ([]byte, error) {
	buf := bytes.NewBuffer(dst[:0])
	if err := c.em.MarshalToBuffer(native, buf); err != nil {
		return nil, fmt.Errorf("cbor marshal: %w", err)
	}
	return buf.Bytes(), nil
}

func (c *cborCodec) Unmarshal(data []byte, into any) (any, error) {
	resetStruct(into)
	if err := c.dm.Unmarshal(data, into); err != nil {
		return nil, fmt.Errorf("cbor unmarshal: %w", err)
	}
	return into, nil
}
