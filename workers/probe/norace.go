//go:build !race

package probe

// cpuBlockOps is a CPU block's length in operations: 20–25 ms on the VM
// serdebench is built on (8–17 µs an operation).
const cpuBlockOps = 1500
