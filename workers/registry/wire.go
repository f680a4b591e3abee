package registry

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The Confluent wire format: a value begins with the magic byte 0 and its schema's
// id (4 bytes, big-endian); a protobuf value then names its message by its index
// path in the .proto file (zigzag varints: the count, then each index; the file's
// first message, [0], as the single byte 0).
const (
	magic = 0
	// HeaderBytes is the header's size before any message indexes.
	HeaderBytes = 5
)

// maxIndexes bounds the message index path a header may claim (nesting depth).
const maxIndexes = 64

// AppendHeader appends the header for schema id to dst, then indexes (a
// protobuf message's, from MessageIndexes; nil for other types).
func AppendHeader(dst []byte, id int, indexes []byte) []byte {
	dst = append(dst, magic)
	dst = binary.BigEndian.AppendUint32(dst, uint32(id))
	return append(dst, indexes...)
}

// MessageIndexes encodes a protobuf message's index path as the header carries it.
func MessageIndexes(path []int) []byte {
	if len(path) == 1 && path[0] == 0 {
		return []byte{0}
	}
	out := binary.AppendVarint(nil, int64(len(path)))
	for _, i := range path {
		out = binary.AppendVarint(out, int64(i))
	}
	return out
}

// SameIndexes says whether a header's encoded message indexes name path (either
// encoding of [0] does).
func SameIndexes(encoded []byte, path []int) bool {
	n, k := binary.Varint(encoded)
	if k <= 0 {
		return false
	}
	if n == 0 {
		return len(encoded) == k && len(path) == 1 && path[0] == 0
	}
	if int(n) != len(path) {
		return false
	}
	for _, want := range path {
		encoded = encoded[k:]
		var i int64
		if i, k = binary.Varint(encoded); k <= 0 || i != int64(want) {
			return false
		}
	}
	return len(encoded) == k
}

// ParseHeader splits a framed value into its schema id, its message indexes as
// encoded (protobuf only) and the value behind them.
func ParseHeader(data []byte, protobuf bool) (id int, indexes, rest []byte, err error) {
	if len(data) < HeaderBytes {
		return 0, nil, nil, fmt.Errorf("value of %d bytes is shorter than the wire format's %d-byte header", len(data), HeaderBytes)
	}
	if data[0] != magic {
		return 0, nil, nil, fmt.Errorf("value begins with byte %d, not the wire format's magic byte 0: not written by a registry serializer", data[0])
	}
	id = int(binary.BigEndian.Uint32(data[1:HeaderBytes]))
	rest = data[HeaderBytes:]
	if !protobuf {
		return id, nil, rest, nil
	}
	n, k := binary.Varint(rest)
	if k <= 0 || n < 0 || n > maxIndexes {
		return 0, nil, nil, errors.New("protobuf value: corrupt message index count")
	}
	end := k
	for range n {
		_, k := binary.Varint(rest[end:])
		if k <= 0 {
			return 0, nil, nil, errors.New("protobuf value: corrupt message index")
		}
		end += k
	}
	return id, rest[:end], rest[end:], nil
}
