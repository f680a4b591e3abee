// Package conformance is the worker contract's conformance suite (docs/worker-contract.md):
// every worker implementation — the Go worker (cmd/worker) and the JVM worker
// (workers/jvm) — runs as its own process through the same scenarios against the real
// broker: a trial whose summaries merge and whose counts equal a read-back of the
// topic (producers and consumers of one runtime, and of two), the start gate, an
// interrupted worker, SIGTERM within seconds, the clock endpoint, arguments and
// trials a worker was not built for, and a broker restart mid-trial. The suite is
// tests only; this file documents it.
package conformance
