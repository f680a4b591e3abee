package summary

// Build is what a worker ran that shapes its numbers besides its settings: the
// language runtime, the Kafka client library, each with its version, and the
// machine as the worker's container sees it (the node's CPU and kernel). A
// nightly that slowed after an upgrade names the upgrade from these.
type Build struct {
	// Runtime and RuntimeVersion: "go" "go1.26.1", "java" "17.0.13+11".
	Runtime        string `json:"runtime"`
	RuntimeVersion string `json:"runtimeVersion"`
	// Client and ClientVersion are the Kafka client library: "franz-go" "v1.20.5",
	// "sarama" "v1.46.3", "librdkafka" "2.12.0", "kafka-clients" "4.4.0".
	Client        string `json:"client"`
	ClientVersion string `json:"clientVersion"`
	// CPUModel is the processor's model name (/proc/cpuinfo; empty where the
	// system does not say); Kernel the kernel's release (uname -r).
	CPUModel string `json:"cpuModel,omitempty"`
	Kernel   string `json:"kernel,omitempty"`
}
