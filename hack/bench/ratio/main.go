// Command ratio prints how one set of repeated measurements compares with
// another, as the project's statistics say it (internal/stats.RelativeChange): the
// ratio of OURS to THEIRS (the Hodges-Lehmann estimate on logarithms), its
// interval and that interval's confidence, and the Mann-Whitney p-value. The bench
// scripts feed it interleaved rounds.
//
//	ratio OURS... -- THEIRS...   →   ratio low high confidence p
package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/serdebench/serdebench/internal/stats"
)

func main() {
	args := os.Args[1:]
	sep := slices.Index(args, "--")
	if sep < 1 || sep == len(args)-1 {
		fmt.Fprintln(os.Stderr, "usage: ratio OURS... -- THEIRS...")
		os.Exit(2)
	}
	ours, err := floats(args[:sep])
	if err == nil {
		var theirs []float64
		if theirs, err = floats(args[sep+1:]); err == nil {
			c := stats.RelativeChange(theirs, ours)
			fmt.Printf("%.4f %.4f %.4f %.4f %.4f\n", 1+c.Percent/100, 1+c.LowPercent/100, 1+c.HighPercent/100, c.Confidence, c.P)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "ratio:", err)
	os.Exit(2)
}

func floats(ss []string) ([]float64, error) {
	out := make([]float64, len(ss))
	for i, s := range ss {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("value %q: %w", s, err)
		}
		out[i] = v
	}
	return out, nil
}
