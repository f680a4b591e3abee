package payload

import (
	"fmt"
	"math/rand/v2"

	"github.com/serdebench/serdebench/api/trial"
)

// Opaque is the bytes schema's record: a JSON string of random capital letters,
// exactly the target size with its quotes. Kafka's ProducerPerformance fills its
// records the same way (random A-Z), so the raw codec's records match its at
// every size down to 2 B; a format with fields cannot go that small.
type Opaque string

var opaque = Type{Name: "Opaque", New: func() any { return new(Opaque) }}

func init() {
	register(Schema{Name: trial.BytesSchema, TypeFor: func(int) Type { return opaque }, fill: fillOpaque, opaque: true})
}

func fillOpaque(rng *rand.Rand, rec any, size int) error {
	n := size - 2 // the quotes
	if n < 0 {
		return fmt.Errorf("size is below the bytes minimum of 2 B (the quotes)")
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('A' + rng.IntN(26))
	}
	*rec.(*Opaque) = Opaque(b)
	return nil
}
