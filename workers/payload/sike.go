package payload

import (
	"fmt"
	"math/rand/v2"

	"google.golang.org/protobuf/proto"

	"github.com/serdebench/serdebench/workers/payload/pb"
)

// The SIKE schemas (shared/papers/sike-serializers-in-kafka.txt, Figure 2).
const (
	SimpleSchema  = "simple"
	ComplexSchema = "complex"
	NestedSchema  = "nested"
)

// Simple holds only primitive fields; its size knob is the query length.
type Simple struct {
	Timestamp     int64  `json:"timestamp" msgpack:"timestamp"`
	Query         string `json:"query" msgpack:"query"`
	PageNumber    int32  `json:"page_number" msgpack:"page_number"`
	ResultPerPage int32  `json:"result_per_page" msgpack:"result_per_page"`
}

// Complex holds a map and an array; its size knob is the number of entries.
type Complex struct {
	Timestamp int64            `json:"timestamp" msgpack:"timestamp"`
	Storage   map[string]int32 `json:"storage" msgpack:"storage,allownil"`
	Arr       []int32          `json:"arr" msgpack:"arr,allownil"`
}

// Nested embeds a Simple; its size knob is the embedded query length.
type Nested struct {
	Timestamp int64   `json:"timestamp" msgpack:"timestamp"`
	ID        int32   `json:"id" msgpack:"id"`
	SimpleMsg *Simple `json:"simple_msg" msgpack:"simple_msg"`
}

var sikeTypes = []Type{
	{Name: "SimpleMessage", New: func() any { return new(Simple) }, Proto: func() proto.Message { return new(pb.SimpleMessage) }},
	{Name: "ComplexMessage", New: func() any { return new(Complex) }, Proto: func() proto.Message { return new(pb.ComplexMessage) }},
	{Name: "NestedMessage", New: func() any { return new(Nested) }, Proto: func() proto.Message { return new(pb.NestedMessage) }},
}

func init() {
	simple, complex, nested := sikeTypes[0], sikeTypes[1], sikeTypes[2]
	register(Schema{Name: SimpleSchema, TypeFor: func(int) Type { return simple }, fill: func(rng *rand.Rand, rec any, size int) error {
		return fillSimple(rng, rec.(*Simple), size)
	}})
	register(Schema{Name: NestedSchema, TypeFor: func(int) Type { return nested }, fill: fillNested})
	register(Schema{Name: ComplexSchema, TypeFor: func(int) Type { return complex }, fill: fillComplex})
}

func fillSimple(rng *rand.Rand, s *Simple, size int) error {
	s.Timestamp = timestamp(rng).UnixMilli()
	s.PageNumber = int32(1 + rng.IntN(100))
	s.ResultPerPage = int32(10 + rng.IntN(91))
	pad := size - JSONSize(s)
	if pad < 0 {
		return fmt.Errorf("size is below the simple minimum of about %d B", size-pad)
	}
	s.Query = text(rng, pad)
	return nil
}

func fillNested(rng *rand.Rand, rec any, size int) error {
	n := rec.(*Nested)
	n.Timestamp = timestamp(rng).UnixMilli()
	n.ID = rng.Int32()
	n.SimpleMsg = new(Simple)
	outer := JSONSize(n) - JSONSize(n.SimpleMsg)
	return fillSimple(rng, n.SimpleMsg, size-outer)
}

// fillComplex grows the map and array together up to the target, then adds one map
// entry whose key length makes the JSON size exact.
func fillComplex(rng *rand.Rand, rec any, size int) error {
	c := rec.(*Complex)
	c.Timestamp = timestamp(rng).UnixMilli()
	c.Storage = map[string]int32{}
	c.Arr = []int32{}
	cur := JSONSize(c)
	if cur > size {
		return fmt.Errorf("size is below the complex minimum of %d B", cur)
	}
	for i := 0; ; i++ {
		key := fmt.Sprintf("%s_%d", words[rng.IntN(len(words))], i)
		val, elem := rng.Int32N(1_000_000), rng.Int32N(1_000_000)
		// "key":val, plus elem, plus separators.
		add := len(key) + 3 + digits(val) + 1 + digits(elem) + 1
		if cur+add > size {
			return padComplex(rng, c, size)
		}
		c.Storage[key] = val
		c.Arr = append(c.Arr, elem)
		cur += add
	}
}

func digits(v int32) int { return len(fmt.Sprint(v)) }

func padComplex(rng *rand.Rand, c *Complex, size int) error {
	const overhead = len(`,"_":0`)
	gap := size - JSONSize(c)
	if gap < overhead {
		return nil // within a few bytes already
	}
	n := gap - overhead
	if len(c.Storage) == 0 {
		n++ // the first entry has no comma
	}
	key := "_" + text(rng, n)
	c.Storage[key] = 0
	if n := JSONSize(c); n != size {
		return fmt.Errorf("complex padding missed: %d B for %d B", n, size)
	}
	return nil
}
