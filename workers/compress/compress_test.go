package compress_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/compress"
	"github.com/serdebench/serdebench/workers/payload"
)

// values returns encoded records of every schema at 1,176 B, plus edge inputs.
func values(t testing.TB) map[string][]byte {
	out := map[string][]byte{"empty": {}, "one byte": {42}, "random 64 KiB": random(64 << 10), "zeros 1 MiB": make([]byte, 1<<20)}
	for _, schemaName := range payload.Structured() {
		schema, _ := payload.Lookup(schemaName)
		pool, err := schema.Pool(5, 1176, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"json", "protobuf"} {
			c, _ := codec.New(name, schema.TypeFor(1176))
			native, _ := c.Native(pool[0])
			b, err := c.Marshal(nil, native)
			if err != nil {
				t.Fatal(err)
			}
			out[schemaName+"/"+name] = b
		}
	}
	return out
}

func random(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// TestRoundTrip: every compressor gives back every value exactly, twice through one
// instance with reused buffers; JSON compresses, random data does not grow by much.
func TestRoundTrip(t *testing.T) {
	for _, name := range compress.Names()[1:] {
		c, err := compress.New(name)
		if err != nil {
			t.Fatal(err)
		}
		var zbuf, buf []byte
		for label, v := range values(t) {
			for range 2 {
				z, err := c.Compress(zbuf, v)
				if err != nil {
					t.Fatalf("%s %s: compress: %v", name, label, err)
				}
				zbuf = z
				got, err := c.Decompress(buf, z)
				if err != nil {
					t.Fatalf("%s %s: decompress: %v", name, label, err)
				}
				buf = got
				if !bytes.Equal(got, v) {
					t.Fatalf("%s %s: round trip differs (%d B in, %d B out)", name, label, len(v), len(got))
				}
			}
			switch {
			case strings.HasSuffix(label, "/json") && len(zbuf) >= len(v):
				t.Errorf("%s %s: %d B compressed to %d B", name, label, len(v), len(zbuf))
			case label == "random 64 KiB" && len(zbuf) > len(v)+len(v)/50+128:
				t.Errorf("%s %s: incompressible data grew to %d B", name, label, len(zbuf))
			}
		}
	}
}

// TestCorruptValues: truncated, flipped and hostile values are errors, never panics,
// and nothing decompresses past the value limit.
func TestCorruptValues(t *testing.T) {
	bomb := make([]byte, 80<<20)
	for _, name := range compress.Names()[1:] {
		c, _ := compress.New(name)
		good, err := c.Compress(nil, values(t)["business-record/json"])
		if err != nil {
			t.Fatal(err)
		}
		var inputs [][]byte
		for n := 0; n < len(good); n += 1 + len(good)/50 {
			inputs = append(inputs, good[:n])
		}
		for i := range 200 {
			bad := append([]byte(nil), good...)
			bad[(i*7919)%len(bad)] ^= byte(1 + i%255)
			inputs = append(inputs, bad)
		}
		for i, in := range inputs {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s input %d: panic: %v", name, i, r)
					}
				}()
				_, _ = c.Decompress(nil, in)
			}()
		}
		if len(good) > 2 {
			if _, err := c.Decompress(nil, good[:len(good)/2]); err == nil {
				t.Errorf("%s: half a value decompressed without an error", name)
			}
		}
		z, err := c.Compress(nil, bomb)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := c.Decompress(nil, z); err == nil {
			t.Errorf("%s: an 80 MiB value decompressed (%d B) past the limit", name, len(out))
		}
	}
}

func TestUnknown(t *testing.T) {
	if _, err := compress.New("brotli"); err == nil || !strings.Contains(err.Error(), "brotli") {
		t.Fatalf("got %v", err)
	}
	if c, err := compress.New("none"); c != nil || err != nil {
		t.Fatalf("none: %v %v", c, err)
	}
}

// BenchmarkCompressors: compress and decompress per compressor on a 1,176 B business
// record in each codec.
func BenchmarkCompressors(b *testing.B) {
	schema, _ := payload.Lookup(payload.BusinessRecord)
	pool, _ := schema.Pool(1, 1176, 1)
	for _, cn := range []string{"json", "protobuf"} {
		cd, _ := codec.New(cn, schema.TypeFor(1176))
		native, _ := cd.Native(pool[0])
		v, _ := cd.Marshal(nil, native)
		for _, name := range compress.Names()[1:] {
			c, _ := compress.New(name)
			z, _ := c.Compress(nil, v)
			b.Run(fmt.Sprintf("compress/%s/%s", cn, name), func(b *testing.B) {
				b.ReportAllocs()
				buf := make([]byte, 0, 2*len(v))
				for b.Loop() {
					buf, _ = c.Compress(buf, v)
				}
				b.ReportMetric(float64(len(z)), "comp-B")
			})
			b.Run(fmt.Sprintf("decompress/%s/%s", cn, name), func(b *testing.B) {
				b.ReportAllocs()
				buf := make([]byte, 0, 2*len(v))
				for b.Loop() {
					buf, _ = c.Decompress(buf, z)
				}
			})
		}
	}
}

// TestHostileXZ: a block header that asks for a 4 GiB dictionary, with valid CRCs,
// is refused before the library allocates it: as the first block, or as a second
// block after a valid one (the library reads blocks before the index that counts
// them).
func TestHostileXZ(t *testing.T) {
	c, _ := compress.New("xz")
	z, err := c.Compress(nil, []byte(strings.Repeat("serdebench ", 100)))
	if err != nil {
		t.Fatal(err)
	}
	size := (int(z[12]) + 1) * 4
	hostile := append([]byte(nil), z[12:12+size]...)
	at := bytes.Index(hostile, []byte{0x21, 0x01}) // LZMA2, one property byte
	if at < 0 {
		t.Fatalf("no LZMA2 filter in block header %x", hostile)
	}
	hostile[at+2] = 40 // 4 GiB - 1
	binary.LittleEndian.PutUint32(hostile[size-4:], crc32.ChecksumIEEE(hostile[:size-4]))
	first := append(append(append([]byte(nil), z[:12]...), hostile...), z[12+size:]...)
	// The second block's header goes where the index was; the footer still finds
	// the index by its distance back.
	backward := (int(binary.LittleEndian.Uint32(z[len(z)-8:])) + 1) * 4
	idx := len(z) - 12 - backward
	second := append(append(append([]byte(nil), z[:idx]...), hostile...), z[idx:]...)
	for name, value := range map[string][]byte{"first block": first, "second block": second} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = c.Decompress(nil, value)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: a 4 GiB dictionary was not refused", name)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
			t.Errorf("%s: allocated %d MiB refusing it", name, d>>20)
		}
		t.Logf("%s: %v", name, err)
	}
}
