//go:build race

package probe

// cpuBlockOps under the race detector, which makes the loop about ten times
// slower (its reflection-heavy encoding is all instrumented memory access; 14 →
// 150 µs an operation here): a block then lasts about as long as a normal
// build's 1500 operations, 18–23 ms here. A race build's readings are inflated
// either way and compare only with each other; what this keeps is the probe's
// cost, which otherwise added a second or more to every trial of the race-tested
// suites (three blocks before the window, up to four tries after it).
const cpuBlockOps = 125
