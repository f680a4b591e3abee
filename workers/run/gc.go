package run

import "runtime/debug"

// GCPercent is a worker process's GOGC, producers' and consumers' alike: the heap
// grows to four times what is live before a collection, as the JVM is given a
// heap of its own (Kafka's tools run with -Xmx512m). At Go's default of 100 the
// collector took about a seventh of a sarama producer's CPU; at 300 its
// throughput was 1.13x that at 100 (1,176 B records, 6 interleaved rounds) for
// about a quarter more resident memory (docs/measurement.md, "Throughput of the
// worker itself"). Results record it (clientSettings GOGC, GOMEMLIMIT). A pod
// with a memory limit also gets GOMEMLIMIT (controllers/build), so the collector
// works harder before the limit is reached.
const GCPercent = 300

// TuneGC sets GCPercent for this process, unless the environment sets GOGC.
func TuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
