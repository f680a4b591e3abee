// Command pod starts one broker of the local cluster's three-broker KRaft
// StatefulSet (hack/kafka/brokers.sh): it is the image's entrypoint. Each broker
// is also a controller; its node id is its pod's ordinal, and every broker is
// reached at a fixed Service address (the local cluster has no DNS), so the
// quorum and the advertised listeners are known before any pod starts.
//
// Environment: POD_NAME (the downward API's metadata.name, ending in -<ordinal>),
// BROKER_ADDRESSES (the brokers' addresses in ordinal order, comma-separated),
// KAFKA_HEAP (default 384m). It writes server.properties into the data volume,
// formats the storage the first time (a restarted pod keeps its log: the volume
// outlives it), then becomes the JVM, so SIGTERM reaches Kafka directly.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

const (
	java      = "/opt/java/bin/java"
	classpath = "/opt/kafka/libs/*"
	log4j     = "/opt/kafka/config/log4j2.properties"
	dataDir   = "/var/lib/kafka"
	// clusterID is the KRaft cluster's id: base64url of "serdebench-kraft" (16 bytes).
	clusterID = "c2VyZGViZW5jaC1rcmFmdA"
	// Ports: clients, and the controllers' quorum.
	brokerPort     = 9092
	controllerPort = 9093
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "kafka pod: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	id, addrs, err := identity(os.Getenv("POD_NAME"), os.Getenv("BROKER_ADDRESSES"))
	if err != nil {
		return err
	}
	props := filepath.Join(dataDir, "server.properties")
	if err := os.WriteFile(props, []byte(properties(id, addrs)), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", props, err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "data", "meta.properties")); errors.Is(err, os.ErrNotExist) {
		cmd := exec.Command(java, "-Xmx128m", "-Dlog4j2.configurationFile="+log4j, "-cp", classpath,
			"kafka.tools.StorageTool", "format", "-t", clusterID, "-c", props)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("format storage: %w", err)
		}
	}
	heap := os.Getenv("KAFKA_HEAP")
	if heap == "" {
		heap = "384m"
	}
	args := []string{java, "-Xms" + heap, "-Xmx" + heap, "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
		"-Djava.awt.headless=true", "-Dlog4j2.configurationFile=" + log4j, "-cp", classpath, "kafka.Kafka", props}
	return syscall.Exec(java, args, os.Environ())
}

// identity is the broker's node id (its pod's ordinal) and the brokers' addresses.
func identity(pod, addresses string) (int, []string, error) {
	i := strings.LastIndexByte(pod, '-')
	id, err := strconv.Atoi(pod[i+1:])
	if i < 0 || err != nil || id < 0 {
		return 0, nil, fmt.Errorf("POD_NAME %q: want a StatefulSet pod's name, ending in -<ordinal>", pod)
	}
	addrs := strings.Split(addresses, ",")
	if addresses == "" || id >= len(addrs) {
		return 0, nil, fmt.Errorf("BROKER_ADDRESSES %q names no address for broker %d", addresses, id)
	}
	return id, addrs, nil
}

// properties is the broker's configuration: a combined broker and controller in a
// static quorum of all the brokers, replicated internal topics, and the same
// limits as the host broker (hack/kafka/server.properties).
func properties(id int, addrs []string) string {
	voters := make([]string, len(addrs))
	for i, a := range addrs {
		voters[i] = fmt.Sprintf("%d@%s:%d", i, a, controllerPort)
	}
	rf := min(3, len(addrs))
	return fmt.Sprintf(`process.roles=broker,controller
node.id=%d
controller.quorum.voters=%s
listeners=PLAINTEXT://0.0.0.0:%d,CONTROLLER://0.0.0.0:%d
advertised.listeners=PLAINTEXT://%s:%d
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=%s/data
num.partitions=3
default.replication.factor=%d
offsets.topic.replication.factor=%d
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=%d
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=%d
share.coordinator.state.topic.min.isr=1
min.insync.replicas=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
log.cleaner.dedupe.buffer.size=16777216
log.segment.bytes=268435456
message.max.bytes=10485760
`, id, strings.Join(voters, ","), brokerPort, controllerPort, addrs[id], brokerPort, dataDir, rf, rf, rf, rf)
}
