package compress

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/ulikunitz/xz"
)

// deflateCompressor writes raw Deflate (RFC 1951) with Go's compress/flate at level
// 6, java.util.zip's default.
type deflateCompressor struct {
	w  *flate.Writer
	aw appendWriter
	r  io.ReadCloser
	br bytes.Reader
}

func newDeflate() (*deflateCompressor, error) {
	c := &deflateCompressor{}
	w, err := flate.NewWriter(&c.aw, 6)
	if err != nil {
		return nil, fmt.Errorf("deflate: %w", err)
	}
	c.w, c.r = w, flate.NewReader(&c.br)
	return c, nil
}

func (c *deflateCompressor) Name() string { return "deflate" }

func (c *deflateCompressor) Compress(dst, src []byte) ([]byte, error) {
	c.aw.b = dst[:0]
	c.w.Reset(&c.aw)
	if _, err := c.w.Write(src); err != nil {
		return nil, fmt.Errorf("deflate: %w", err)
	}
	if err := c.w.Close(); err != nil {
		return nil, fmt.Errorf("deflate: %w", err)
	}
	return c.aw.b, nil
}

func (c *deflateCompressor) Decompress(dst, src []byte) ([]byte, error) {
	c.br.Reset(src)
	if err := c.r.(flate.Resetter).Reset(&c.br, nil); err != nil {
		return nil, fmt.Errorf("deflate: %w", err)
	}
	b, err := readAll(dst, c.r)
	if err != nil {
		return nil, fmt.Errorf("deflate: %w", err)
	}
	return b, nil
}

// zstdCompressor writes one Zstandard frame per value with klauspost/compress at its
// default level (zstd level 3, zstd-jni's default), single-threaded.
type zstdCompressor struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

func newZstd() (*zstdCompressor, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxValueBytes))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	return &zstdCompressor{enc: enc, dec: dec}, nil
}

func (c *zstdCompressor) Name() string { return "zstd" }

func (c *zstdCompressor) Compress(dst, src []byte) ([]byte, error) {
	return c.enc.EncodeAll(src, dst[:0]), nil
}

func (c *zstdCompressor) Decompress(dst, src []byte) ([]byte, error) {
	b, err := c.dec.DecodeAll(src, dst[:0])
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	return b, nil
}

// lz4Compressor writes one LZ4 frame per value with pierrec/lz4 (the fast compressor,
// 64 KiB blocks, no checksums: Kafka's record batch has its own CRC).
type lz4Compressor struct {
	w  *lz4.Writer
	aw appendWriter
	r  *lz4.Reader
	br bytes.Reader
}

func newLZ4() *lz4Compressor {
	c := &lz4Compressor{}
	c.w = lz4.NewWriter(&c.aw)
	if err := c.w.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false), lz4.ConcurrencyOption(1)); err != nil {
		panic(err) // constant options
	}
	c.r = lz4.NewReader(&c.br)
	return c
}

func (c *lz4Compressor) Name() string { return "lz4" }

func (c *lz4Compressor) Compress(dst, src []byte) ([]byte, error) {
	c.aw.b = dst[:0]
	c.w.Reset(&c.aw)
	if _, err := c.w.Write(src); err != nil {
		return nil, fmt.Errorf("lz4: %w", err)
	}
	if err := c.w.Close(); err != nil {
		return nil, fmt.Errorf("lz4: %w", err)
	}
	return c.aw.b, nil
}

func (c *lz4Compressor) Decompress(dst, src []byte) ([]byte, error) {
	c.br.Reset(src)
	c.r.Reset(&c.br)
	b, err := readAll(dst, c.r)
	if err != nil {
		return nil, fmt.Errorf("lz4: %w", err)
	}
	return b, nil
}

// snappyCompressor writes Snappy's block format (golang/snappy), which carries the
// decompressed length: the form Kafka's own snappy codec frames.
type snappyCompressor struct{}

func (snappyCompressor) Name() string { return "snappy" }

func (snappyCompressor) Compress(dst, src []byte) ([]byte, error) {
	return snappy.Encode(dst[:cap(dst)], src), nil
}

func (snappyCompressor) Decompress(dst, src []byte) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	if n > maxValueBytes {
		return nil, fmt.Errorf("snappy: value claims %d B decompressed", n)
	}
	b, err := snappy.Decode(dst[:cap(dst)], src)
	if err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	return b, nil
}

// xzCompressor writes one .xz stream per value with ulikunitz/xz and a 256 KiB
// dictionary, the size of XZ's fastest preset (the thesis' level 0). Each value is a
// new stream, so each pays the stream's setup, as in the thesis.
type xzCompressor struct{}

const xzDictCap = 256 << 10

func (xzCompressor) Name() string { return "xz" }

func (xzCompressor) Compress(dst, src []byte) ([]byte, error) {
	aw := appendWriter{b: dst[:0]}
	w, err := xz.WriterConfig{DictCap: xzDictCap}.NewWriter(&aw)
	if err != nil {
		return nil, fmt.Errorf("xz: %w", err)
	}
	if _, err := w.Write(src); err != nil {
		return nil, fmt.Errorf("xz: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("xz: %w", err)
	}
	return aw.b, nil
}

func (xzCompressor) Decompress(dst, src []byte) ([]byte, error) {
	if err := xzBounded(src); err != nil {
		return nil, fmt.Errorf("xz: %w", err)
	}
	r, err := xz.ReaderConfig{DictCap: xzDictCap, SingleStream: true}.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("xz: %w", err)
	}
	b, err := readAll(dst, r)
	if err != nil {
		return nil, fmt.Errorf("xz: %w", err)
	}
	return b, nil
}

// xzBounded checks what ulikunitz/xz would allocate before it reads a byte of data:
// the dictionary a block declares (DictCap is only a floor; a header can ask for
// 4 GiB), in a stream of one block, as Compress writes. It reads the block header,
// walks the LZMA2 chunk headers to the block's end, and reads the index (xz file
// format 1.0.4, sections 2.1, 3, 4; LZMA2 chunk headers as in xz's lzma2_decoder.c);
// the library checks the CRCs afterwards.
func xzBounded(src []byte) error {
	const hdr, footer = 12, 12 // stream header and footer
	if len(src) < hdr+footer+8 {
		return errors.New("value too short for an .xz stream")
	}
	block := src[hdr:]
	size := (int(block[0]) + 1) * 4
	if block[0] == 0 || size > len(block)-footer {
		return errors.New("no block header")
	}
	h, flags := block[1:size-4], block[1]
	i := 1
	for _, present := range []bool{flags&0x40 != 0, flags&0x80 != 0} { // compressed and uncompressed sizes
		if present {
			if i >= len(h) {
				return errors.New("block header too short")
			}
			_, n := binary.Uvarint(h[i:])
			if n <= 0 {
				return errors.New("bad size in the block header")
			}
			i += n
		}
	}
	for range int(flags&3) + 1 { // filters
		if i >= len(h) {
			return errors.New("block header too short")
		}
		id, n := binary.Uvarint(h[i:])
		if n <= 0 || i+n >= len(h) {
			return errors.New("bad filter in the block header")
		}
		i += n
		props, n := binary.Uvarint(h[i:])
		if n <= 0 || props > uint64(len(h)) {
			return errors.New("bad filter in the block header")
		}
		i += n
		if id == 0x21 { // LZMA2: one byte, the dictionary size
			if props != 1 || i >= len(h) {
				return errors.New("bad LZMA2 properties")
			}
			if d := lzma2Dict(h[i]); d > xzDictCap {
				return fmt.Errorf("the value's dictionary of %d B is larger than %d B", d, xzDictCap)
			}
		}
		i += int(props)
	}
	// The footer's backward size locates the index; its record count is the number
	// of blocks.
	backward := (int(binary.LittleEndian.Uint32(src[len(src)-8:])) + 1) * 4
	idx := len(src) - footer - backward
	if idx < hdr || src[idx] != 0 {
		return errors.New("no index")
	}
	if records, n := binary.Uvarint(src[idx+1:]); n <= 0 || records != 1 {
		return errors.New("not one block per value")
	}
	// The library reads block after block before it reads the index: the first block
	// must end where the index begins, or a second block header could still ask for
	// a large dictionary.
	end, err := lzma2End(src, hdr+size)
	if err != nil {
		return err
	}
	end = hdr + (end-hdr+3)&^3 // block padding
	if t := int(src[7] & 0x0f); t > 0 {
		end += 4 << ((t - 1) / 3) // the check: CRC32, CRC64, SHA-256, ...
	}
	if end != idx {
		return errors.New("not one block per value")
	}
	return nil
}

// lzma2End walks LZMA2 chunk headers from pos, without decoding, to the offset after
// the end marker.
func lzma2End(src []byte, pos int) (int, error) {
	for pos < len(src) {
		c := src[pos]
		switch {
		case c == 0x00: // end of data
			return pos + 1, nil
		case c == 0x01 || c == 0x02: // uncompressed chunk: 2 bytes of size-1
			if pos+3 > len(src) {
				return 0, errors.New("truncated LZMA2 chunk")
			}
			pos += 3 + (int(src[pos+1])<<8 | int(src[pos+2])) + 1
		case c >= 0x80: // LZMA chunk: unpacked size (2), packed size-1 (2), props from 0xc0
			head := 5
			if c >= 0xc0 {
				head = 6
			}
			if pos+head > len(src) {
				return 0, errors.New("truncated LZMA2 chunk")
			}
			pos += head + (int(src[pos+3])<<8 | int(src[pos+4])) + 1
		default:
			return 0, fmt.Errorf("invalid LZMA2 control byte %#x", c)
		}
	}
	return 0, errors.New("LZMA2 data without an end marker")
}

// lzma2Dict decodes LZMA2's dictionary-size byte.
func lzma2Dict(b byte) uint64 {
	if b >= 40 {
		return 1<<32 - 1
	}
	return uint64(2|b&1) << (b/2 + 11)
}
