package stats

import (
	"math"
	"slices"
)

// Holm adjusts the p-values of a family of tests made together (Holm 1979, the
// step-down Bonferroni method): a test is significant when its adjusted p-value
// is below Alpha, and then the chance of any false "different" in the family is at
// most Alpha, whatever the tests' dependence. serdebench corrects every table,
// comparison and schedule run as one family: a user reads the whole table, so one
// false cell anywhere misleads as much as one in the row they looked at.
// Benjamini-Hochberg would bound only the share of false cells, which a table with
// a single real difference turns into the same promise at best.
// NaN p-values (nothing tested) stay NaN and do not count as tests.
func Holm(ps []float64) []float64 {
	out := make([]float64, len(ps))
	var idx []int
	for i, p := range ps {
		out[i] = p
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case ps[a] < ps[b]:
			return -1
		case ps[a] > ps[b]:
			return 1
		}
		return 0
	})
	m, running := len(idx), 0.0
	for j, i := range idx {
		running = math.Max(running, math.Min(1, float64(m-j)*ps[i]))
		out[i] = running
	}
	return out
}

// Tests counts the p-values of a family that are tests (not NaN).
func Tests(ps []float64) int {
	n := 0
	for _, p := range ps {
		if !math.IsNaN(p) {
			n++
		}
	}
	return n
}
