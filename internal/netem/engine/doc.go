// Package engine impairs the packets a broker sends, as Linux's netem and tbf
// queueing disciplines would: delay with jitter (uniform, or a normal
// distribution), correlation, random loss and a token-bucket bandwidth cap. It is
// `serdebench run`'s local stand-in for Chaos Mesh's NetworkChaos on a kernel
// without netem: an iptables NFQUEUE rule hands it the packets arriving from the
// broker's network namespace (hack/calibrate/netns.sh), and it holds, drops or
// releases each one. make test calibrates it (e2e/calibration, docs/faults.md).
// What to do (netem.Impairment) and what it did (netem.Stats) live in
// internal/netem, which reports link without the engine.
package engine
