// Package compress implements application-level compression of single record values
// (payload.compression): each value is compressed on its own before it is sent, apart
// from Kafka's batch compression. Settings follow the Java serializer thesis
// (shared/papers, Table 6.2): Deflate level 6, Zstandard level 3, LZ4's fast
// compressor, XZ at its fastest preset.
package compress

import (
	"fmt"
	"io"
)

// Compressor compresses and decompresses one value at a time. It is not safe for
// concurrent use: each worker goroutine owns its own.
type Compressor interface {
	// Name is the compressor's name in specs and results.
	Name() string
	// Compress appends src's compressed form to dst[:0]; the result may alias dst.
	Compress(dst, src []byte) ([]byte, error)
	// Decompress appends src's decompressed form to dst[:0]; the result may alias dst.
	Decompress(dst, src []byte) ([]byte, error)
}

// maxValueBytes bounds what one value may decompress to, so a corrupt or hostile
// value cannot claim gigabytes. Kafka's default message limit is about 1 MiB; 64 MiB
// leaves room for any topic's max.message.bytes and a high compression ratio.
const maxValueBytes = 64 << 20

// None is the name of no compression.
const None = "none"

// Names lists the compressors New accepts, none first.
func Names() []string { return []string{None, "deflate", "zstd", "lz4", "snappy", "xz"} }

// New returns the named compressor, or nil for none.
func New(name string) (Compressor, error) {
	switch name {
	case None, "":
		return nil, nil
	case "deflate":
		return newDeflate()
	case "zstd":
		return newZstd()
	case "lz4":
		return newLZ4(), nil
	case "snappy":
		return snappyCompressor{}, nil
	case "xz":
		return xzCompressor{}, nil
	default:
		return nil, fmt.Errorf("unknown payload compression %q (known: %v)", name, Names())
	}
}

// appendWriter appends everything written to b.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// readAll appends everything r yields to dst[:0], growing dst as needed, and fails
// past maxValueBytes.
func readAll(dst []byte, r io.Reader) ([]byte, error) {
	b := dst[:0]
	for {
		if len(b) == cap(b) {
			if len(b) > maxValueBytes {
				return nil, fmt.Errorf("value decompresses past %d B", maxValueBytes)
			}
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
