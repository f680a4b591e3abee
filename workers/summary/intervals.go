package summary

import "sort"

// Intervals is a set of sequence numbers as half-open [from, to) intervals. The
// operations below accept any order and overlap and work on a normalized copy.
type Intervals [][2]int64

// normalize returns the set sorted with overlapping and touching intervals merged
// and empty ones dropped.
func (s Intervals) normalize() Intervals {
	sorted := make(Intervals, 0, len(s))
	for _, iv := range s {
		if iv[1] > iv[0] {
			sorted = append(sorted, iv)
		}
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i][0] < sorted[j][0] })
	out := sorted[:0]
	for _, iv := range sorted {
		if n := len(out); n > 0 && iv[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], iv[1])
			continue
		}
		out = append(out, iv)
	}
	return out
}

// Size is the number of distinct values in the set.
func (s Intervals) Size() int64 {
	var n int64
	for _, iv := range s.normalize() {
		n += iv[1] - iv[0]
	}
	return n
}

// Union is the set of values in s or o.
func (s Intervals) Union(o Intervals) Intervals {
	return append(append(Intervals{}, s...), o...).normalize()
}

// Minus is the set of values in s but not in o.
func (s Intervals) Minus(o Intervals) Intervals {
	a, b := s.normalize(), o.normalize()
	var out Intervals
	j := 0
	for _, iv := range a {
		from := iv[0]
		for j < len(b) && b[j][1] <= from {
			j++
		}
		for k := j; k < len(b) && b[k][0] < iv[1]; k++ {
			if b[k][0] > from {
				out = append(out, [2]int64{from, b[k][0]})
			}
			from = max(from, b[k][1])
		}
		if from < iv[1] {
			out = append(out, [2]int64{from, iv[1]})
		}
	}
	return out
}

// Intersect is the set of values in both s and o.
func (s Intervals) Intersect(o Intervals) Intervals { return s.Minus(s.Minus(o)) }
