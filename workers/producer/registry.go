package producer

import "time"

// marshal encodes native into dst's space. A registry codec's header is timed
// apart (lookup, in ns) from the encoding itself, which is appended to it.
func (r *run) marshal(dst []byte, native any) (b []byte, lookup int64, err error) {
	if r.framed == nil {
		b, err = r.codec.Marshal(dst, native)
		return b, 0, err
	}
	t0 := time.Now()
	hdr, err := r.framed.Frame(dst[:0])
	lookup = time.Since(t0).Nanoseconds()
	if err != nil {
		return nil, lookup, err
	}
	if r.body, err = r.framed.Inner().Marshal(r.body, native); err != nil {
		return nil, lookup, err
	}
	return append(hdr, r.body...), lookup, nil
}
