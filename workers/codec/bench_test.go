package codec_test

import (
	"fmt"
	"testing"

	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/payload"
)

// BenchmarkCodecs measures Marshal and Unmarshal per codec, schema and size on a pool
// of distinct records built before the timer starts. Reported: ns/op, B/op and
// allocs/op of the codec call alone, plus the mean encoded size (enc-B/rec).
func BenchmarkCodecs(b *testing.B) {
	for _, schemaName := range payload.Structured() {
		schema, _ := payload.Lookup(schemaName)
		for _, size := range sizes {
			pool, err := schema.Pool(1, size, 64)
			if err != nil {
				b.Fatal(err)
			}
			for _, name := range codec.Names() {
				c, err := newCodec(b, name, schema.TypeFor(size))
				if err != nil {
					b.Fatal(err)
				}
				natives := make([]any, len(pool))
				encoded := make([][]byte, len(pool))
				var total int
				for i, rec := range pool {
					natives[i], _ = c.Native(rec)
					encoded[i], _ = c.Marshal(nil, natives[i])
					total += len(encoded[i])
				}
				id := fmt.Sprintf("%s/%d/%s", schemaName, size, name)
				b.Run("marshal/"+id, func(b *testing.B) {
					buf := make([]byte, 0, 2*size)
					b.ReportAllocs()
					b.SetBytes(int64(total / len(pool)))
					i := 0
					for b.Loop() {
						out, err := c.Marshal(buf, natives[i%len(natives)])
						if err != nil {
							b.Fatal(err)
						}
						buf = out[:0]
						i++
					}
					b.ReportMetric(float64(total)/float64(len(pool)), "enc-B/rec")
				})
				b.Run("unmarshal/"+id, func(b *testing.B) {
					into := c.NewNative()
					b.ReportAllocs()
					b.SetBytes(int64(total / len(pool)))
					i := 0
					for b.Loop() {
						out, err := c.Unmarshal(encoded[i%len(encoded)], into)
						if err != nil {
							b.Fatal(err)
						}
						into = out
						i++
					}
				})
			}
		}
	}
}
