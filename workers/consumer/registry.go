package consumer

import (
	"time"

	"github.com/serdebench/serdebench/workers/codec"
)

// newCodec returns a codec for one partition.
func (c *consumer) newCodec() (codec.Codec, error) {
	return codec.NewWith(string(c.cfg.Trial.Codec), c.typ, codec.Options{Registry: c.reg, Topic: c.cfg.Topic})
}

// unmarshal decodes a value into the partition's scratch object. A registry
// codec's header is timed apart (lookup, ns) from the decoding (deser, ns).
func (st *partition) unmarshal(encoded []byte) (out any, deser, lookup int64, err error) {
	cd := st.codec
	if st.framed != nil {
		t0 := time.Now()
		encoded, err = st.framed.Unframe(encoded)
		lookup = time.Since(t0).Nanoseconds()
		if err != nil {
			return nil, 0, lookup, err
		}
		cd = st.framed.Inner()
	}
	t0 := time.Now()
	out, err = cd.Unmarshal(encoded, st.scratch)
	return out, time.Since(t0).Nanoseconds(), lookup, err
}
