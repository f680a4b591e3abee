package codec

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/serdebench/serdebench/workers/payload"
)

// vtprotoCodec is the protobuf/vtproto variant: the same generated messages, encoded
// and decoded by the reflection-free methods planetscale/vtprotobuf generates beside
// them (workers/payload/pb/*_vtproto.pb.go). The conversion to and from the payload
// struct is the protobuf codec's.
type vtprotoCodec struct{ *protobufCodec }

// vtMessage is what protoc-gen-go-vtproto adds to every message.
type vtMessage interface {
	proto.Message
	SizeVT() int
	MarshalToSizedBufferVT(dAtA []byte) (int, error)
	UnmarshalVT(dAtA []byte) error
}

func newVtproto(t payload.Type) (*vtprotoCodec, error) {
	if _, ok := t.Proto().(vtMessage); !ok {
		return nil, fmt.Errorf("protobuf/vtproto: %s has no vtproto methods (make generate)", t.Name)
	}
	return &vtprotoCodec{newProtobuf(t)}, nil
}

func (c *vtprotoCodec) Name() string { return "protobuf/vtproto" }

func (c *vtprotoCodec) Marshal(dst []byte, native any) ([]byte, error) {
	m := native.(vtMessage)
	size := m.SizeVT()
	b := slices.Grow(dst[:0], size)[:size]
	// vtproto writes back to front into a buffer of exactly SizeVT bytes.
	if _, err := m.MarshalToSizedBufferVT(b); err != nil {
		return nil, fmt.Errorf("protobuf/vtproto marshal: %w", err)
	}
	return b, nil
}

func (c *vtprotoCodec) Unmarshal(data []byte, into any) (any, error) {
	m := into.(vtMessage)
	proto.Reset(m) // UnmarshalVT merges into what is there
	if err := m.UnmarshalVT(data); err != nil {
		return nil, fmt.Errorf("protobuf/vtproto unmarshal: %w", err)
	}
	return m, nil
}
