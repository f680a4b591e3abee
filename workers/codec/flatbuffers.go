package codec

import (
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/payload/fbgen"
)

// flatbuffersCodec uses google/flatbuffers with the code flatc generated from
// workers/payload/fbgen/payload.fbs. Marshal builds the buffer from the payload struct
// field by field; Unmarshal reads every field back into the struct, so both sides do
// the whole conversion the other codecs do (FlatBuffers' lazy access would otherwise
// time nothing but a bounds check).
type flatbuffersCodec struct {
	t  payload.Type
	fn fbgen.Funcs
	b  *flatbuffers.Builder
}

func newFlatbuffers(t payload.Type) (*flatbuffersCodec, error) {
	fn, ok := fbgen.ByName[t.Name]
	if !ok {
		return nil, fmt.Errorf("flatbuffers: no table for %s", t.Name)
	}
	return &flatbuffersCodec{t: t, fn: fn, b: flatbuffers.NewBuilder(1024)}, nil
}

func (c *flatbuffersCodec) Name() string                   { return "flatbuffers" }
func (c *flatbuffersCodec) Native(rec any) (any, error)    { return rec, nil }
func (c *flatbuffersCodec) Record(native any) (any, error) { return native, nil }
func (c *flatbuffersCodec) NewNative() any                 { return c.t.New() }

func (c *flatbuffersCodec) Marshal(dst []byte, native any) ([]byte, error) {
	c.b.Reset()
	c.b.Finish(c.fn.Build(c.b, native))
	// The builder's buffer is reused by the next record: copy the bytes out.
	return append(dst[:0], c.b.FinishedBytes()...), nil
}

func (c *flatbuffersCodec) Unmarshal(data []byte, into any) (rec any, err error) {
	// Generated accessors index the buffer without checks; a corrupt buffer panics.
	defer recoverCorrupt("flatbuffers", &rec, &err)
	resetStruct(into)
	c.fn.Read(data, into)
	return into, nil
}
