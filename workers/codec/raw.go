package codec

import (
	"encoding/json"
	"fmt"

	"github.com/serdebench/serdebench/workers/payload"
)

// rawCodec sends the record's JSON bytes, built before timing, as they are: the cost
// of the transport alone, against which the other codecs' overhead shows.
type rawCodec struct{ t payload.Type }

func newRaw(t payload.Type) *rawCodec { return &rawCodec{t: t} }

func (c *rawCodec) Name() string   { return "raw" }
func (c *rawCodec) NewNative() any { return []byte(nil) }

func (c *rawCodec) Native(rec any) (any, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("raw: encode payload: %w", err)
	}
	return b, nil
}

func (c *rawCodec) Record(native any) (any, error) {
	rec := c.t.New()
	if err := json.Unmarshal(native.([]byte), rec); err != nil {
		return nil, fmt.Errorf("raw: decode payload: %w", err)
	}
	return rec, nil
}

func (c *rawCodec) Marshal(dst []byte, native any) ([]byte, error) {
	return append(dst[:0], native.([]byte)...), nil
}

func (c *rawCodec) Unmarshal(data []byte, into any) (any, error) {
	return append(into.([]byte)[:0], data...), nil
}
