package summary

// Probe is a measurement of the worker's machine that Kafka takes no part in,
// made before the trial's schedule begins (its CPU part again after the window):
// a nightly that sees every trial move asks it whether the machine moved too. 0
// is not measured.
type Probe struct {
	// CPUNanosPerOp is a fixed serialization loop's time per operation: JSON
	// encoding and decoding of one fixed record on one thread (Go's encoding/json;
	// the JVM worker's Jackson), the median of its blocks, read twice (the
	// geometric mean of both readings).
	CPUNanosPerOp int64 `json:"cpuNanosPerOp,omitempty"`
	// FsyncMicros is a 4 KiB write and its fsync in the worker's temporary
	// directory: the node's disk path, as a broker's log flush takes it (the
	// minimum of 15).
	FsyncMicros int64 `json:"fsyncMicros,omitempty"`
	// ConnectMicros is a TCP connection's set-up to the first bootstrap address
	// (the handshake only: no Kafka request): the network path to a broker (the
	// minimum of 15).
	ConnectMicros int64 `json:"connectMicros,omitempty"`
}
