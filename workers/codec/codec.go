// Package codec implements the serialization formats serdebench compares behind one
// interface. A codec converts the logical record (a payload struct) into its native
// object once, before timing; only Marshal and Unmarshal are timed.
package codec

import (
	"fmt"
	"strings"

	"github.com/serdebench/serdebench/workers/payload"
)

// Codec encodes and decodes one record type. A Codec is not safe for concurrent use:
// each worker goroutine owns its own.
type Codec interface {
	// Name is the codec's name in specs and results.
	Name() string
	// Native converts a logical record into the object Marshal takes (untimed).
	Native(rec any) (any, error)
	// Record converts a native object back into a new logical record (untimed).
	Record(native any) (any, error)
	// NewNative returns an empty native object for Unmarshal to reuse.
	NewNative() any
	// Marshal encodes native, appending to dst where the library allows it; the result
	// may alias dst.
	Marshal(dst []byte, native any) ([]byte, error)
	// Unmarshal decodes data, reusing into where the library allows it, and returns
	// the decoded native object.
	Unmarshal(data []byte, into any) (any, error)
}

// Bounds on what decoding a value may allocate, so a corrupt count in a value cannot
// become a huge allocation: no record holds more list or map entries than
// maxElements, and no value is larger than maxValueBytes.
const (
	maxElements   = 1 << 20
	maxValueBytes = 64 << 20
)

// Names lists the codecs New accepts (the registry variants with NewWith's
// options).
func Names() []string {
	return append([]string{"json", "avro", "protobuf", "msgpack", "raw",
		"thrift-binary", "thrift-compact", "capnproto", "capnproto-packed", "flatbuffers", "gob", "cbor",
		"avro/hamba", "msgpack/msgp", "protobuf/vtproto", "json/goccy"}, RegistryNames()...)
}

// New returns the named codec for the record type t; a registry variant needs
// NewWith.
func New(name string, t payload.Type) (Codec, error) {
	if strings.HasSuffix(name, RegistrySuffix) {
		return NewWith(name, t, Options{})
	}
	if t.Source != nil {
		return newDynamic(name, t.Source)
	}
	switch name {
	case "json":
		return newJSON(t), nil
	case "avro":
		return newAvro(t)
	case "protobuf":
		return newProtobuf(t), nil
	case "msgpack":
		return newMsgpack(t), nil
	case "raw":
		return newRaw(t), nil
	case "thrift-binary":
		return newThrift(name, t, false)
	case "thrift-compact":
		return newThrift(name, t, true)
	case "capnproto":
		return newCapnp(name, t, false)
	case "capnproto-packed":
		return newCapnp(name, t, true)
	case "flatbuffers":
		return newFlatbuffers(t)
	case "avro/hamba":
		return newHamba(t)
	case "msgpack/msgp":
		return newMsgp(t)
	case "protobuf/vtproto":
		return newVtproto(t)
	case "json/goccy":
		return newGoccy(t), nil
	case "gob":
		return newGob(t), nil
	case "cbor":
		return newCBOR(t), nil
	default:
		return nil, fmt.Errorf("unknown codec %q (known: %v)", name, Names())
	}
}

// recoverCorrupt turns a decoder's panic on a corrupt value into an error (deferred
// by codecs whose libraries panic on malformed input instead of returning one).
func recoverCorrupt(codec string, rec *any, err *error) {
	if r := recover(); r != nil {
		*rec, *err = nil, fmt.Errorf("%s unmarshal: corrupt value: %v", codec, r)
	}
}
