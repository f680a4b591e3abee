package summary

// SeqSet records which sequence numbers of one producer on one partition arrived. It
// is a growable bitset: O(1) and allocation-free per record once grown.
type SeqSet struct {
	bits     []uint64
	distinct int64
	total    int64
}

// Add records seq and reports whether it was new.
func (s *SeqSet) Add(seq int64) bool {
	s.total++
	w := int(seq >> 6)
	if w >= len(s.bits) {
		n := max(w+1, 2*len(s.bits))
		nb := make([]uint64, n)
		copy(nb, s.bits)
		s.bits = nb
	}
	m := uint64(1) << (uint(seq) & 63)
	if s.bits[w]&m != 0 {
		return false
	}
	s.bits[w] |= m
	s.distinct++
	return true
}

// Distinct is the number of different sequence numbers seen.
func (s *SeqSet) Distinct() int64 { return s.distinct }

// Total is the number of Add calls, duplicates included.
func (s *SeqSet) Total() int64 { return s.total }

// Intervals returns the set as sorted half-open [from, to) intervals.
func (s *SeqSet) Intervals() Intervals {
	var out Intervals
	start := int64(-1)
	for w, word := range s.bits {
		for b := range 64 {
			seq := int64(w*64 + b)
			if word&(1<<uint(b)) != 0 {
				if start < 0 {
					start = seq
				}
			} else if start >= 0 {
				out = append(out, [2]int64{start, seq})
				start = -1
			}
		}
	}
	if start >= 0 {
		out = append(out, [2]int64{start, int64(len(s.bits) * 64)})
	}
	return out
}
