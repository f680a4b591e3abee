package protocol

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/serdebench/serdebench/api/trial"
)

// Worker is one worker's assignment: what the operator puts in a container's
// arguments and the local runner hands to the same code in-process.
type Worker struct {
	// Role is RoleProducer or RoleConsumer.
	Role string
	// Trial is the trial to run.
	Trial trial.Trial
	// Bootstrap is the brokers' addresses.
	Bootstrap []string
	// Topic and Group are the trial's topic and consumer group (TopicName, GroupName).
	Topic, Group string
	// Experiment and ExperimentUID label the worker's metrics, so queries select one
	// experiment object (Prometheus adds the pod's namespace as a target label).
	Experiment, ExperimentUID string
	// ID is the producer's index or the consumer's name. In an Indexed Job it may
	// contain $(JOB_COMPLETION_INDEX), which the kubelet expands.
	ID string
	// WaitForGroup makes a producer wait until Group is Stable with all consumers.
	WaitForGroup bool
	// StartGate makes a producer, once its group is stable, wait for its
	// coordinator to start it (workers/control: PUT /start on the metrics
	// port), so that all of a trial's producers begin at one instant.
	StartGate bool
	// StandbyIndex, when positive, makes a consumer whose name's index is at
	// least it a standby: it joins its group only when its coordinator says
	// (workers/control: PUT /group/join on the metrics port), a consumers fault's
	// join. In an Indexed Job every pod has the same arguments; the index picks.
	StandbyIndex int
	// WaitTimeout bounds each of those waits.
	WaitTimeout time.Duration
	// MetricsAddr is where to serve /metrics ("" disables); MetricsGrace is the
	// longest it keeps serving after the work ends, for every scraper's final
	// scrape (workers/metrics.Worker.Serve).
	MetricsAddr  string
	MetricsGrace time.Duration
	// Timeout stops the worker (interrupted) after this long; 0 is no limit.
	Timeout time.Duration
	// DrainTimeout bounds the wait for in-flight records once the worker stops.
	DrainTimeout time.Duration
	// SummaryFile, if set, also receives the summary.
	SummaryFile string
	// TerminationLog gets the summary if it fits in TerminationMax bytes, else
	// InLogMarker.
	TerminationLog string
	TerminationMax int
	// TLS settings; the CA is a file (a mounted Secret in a pod).
	TLS, TLSInsecure bool
	TLSCAFile        string
	// SASLMechanism; credentials come from the environment (SASLUserEnv, SASLPasswordEnv).
	SASLMechanism string
	// SchemaRegistry is the schema registry's URL (its Confluent-compatible API),
	// for the registry codecs.
	SchemaRegistry string
}

// Client is the Kafka client w runs: its trial's client on its role's side (a
// consumer's is consumer.client when the trial has one).
func (w Worker) Client() trial.Client { return w.Trial.Settings.ClientOf(w.Side()) }

// Side is the side of a trial w's role is on.
func (w Worker) Side() trial.Side {
	if w.Role == RoleConsumer {
		return trial.SideConsumers
	}
	return trial.SideProducers
}

// Environment variables holding SASL credentials (from a Secret in a pod).
const (
	SASLUserEnv     = "SERDEBENCH_SASL_USERNAME"
	SASLPasswordEnv = "SERDEBENCH_SASL_PASSWORD"
)

// Defaults of the worker's flags.
const (
	DefaultMetricsAddr    = ":9090"
	DefaultMetricsGrace   = 15 * time.Second
	DefaultWaitTimeout    = 2 * time.Minute
	DefaultDrainTimeout   = 5 * time.Second
	DefaultTerminationMax = 4096
)

// Args renders w as the worker binary's arguments (cmd/worker), the inverse of Parse.
func (w Worker) Args() ([]string, error) {
	tj, err := json.Marshal(w.Trial)
	if err != nil {
		return nil, fmt.Errorf("encode trial: %w", err)
	}
	args := []string{
		"--role=" + w.Role,
		"--trial=" + string(tj),
		"--bootstrap=" + strings.Join(w.Bootstrap, ","),
		"--topic=" + w.Topic,
		"--group=" + w.Group,
		"--experiment=" + w.Experiment,
		"--experiment-uid=" + w.ExperimentUID,
		"--id=" + w.ID,
		"--metrics-addr=" + w.MetricsAddr,
		"--metrics-grace=" + w.MetricsGrace.String(),
		"--timeout=" + w.Timeout.String(),
		"--drain-timeout=" + w.DrainTimeout.String(),
	}
	if w.WaitForGroup {
		args = append(args, "--wait-for-group", "--wait-timeout="+w.WaitTimeout.String())
	}
	if w.StartGate {
		args = append(args, "--start-gate")
	}
	if w.StandbyIndex > 0 {
		args = append(args, fmt.Sprintf("--standby-index=%d", w.StandbyIndex))
	}
	if w.SummaryFile != "" {
		args = append(args, "--summary-file="+w.SummaryFile)
	}
	if w.TerminationLog != "" {
		args = append(args, "--termination-log="+w.TerminationLog, fmt.Sprintf("--termination-max-bytes=%d", w.TerminationMax))
	}
	if w.TLS {
		args = append(args, "--tls")
	}
	if w.TLSCAFile != "" {
		args = append(args, "--tls-ca-file="+w.TLSCAFile)
	}
	if w.TLSInsecure {
		args = append(args, "--tls-insecure")
	}
	if w.SASLMechanism != "" {
		args = append(args, "--sasl-mechanism="+w.SASLMechanism)
	}
	if w.SchemaRegistry != "" {
		args = append(args, "--schema-registry="+w.SchemaRegistry)
	}
	return args, nil
}

// Parse reads the worker binary's arguments; usage and errors go to stderr.
func Parse(args []string, stderr io.Writer) (Worker, error) {
	var w Worker
	var trialJSON, bootstrap string
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&w.Role, "role", "", "producer or consumer")
	fs.StringVar(&trialJSON, "trial", "", "the trial to run, as JSON (api/trial.Trial)")
	fs.StringVar(&bootstrap, "bootstrap", "127.0.0.1:9092", "comma-separated Kafka bootstrap servers")
	fs.StringVar(&w.Topic, "topic", "", "the trial's topic")
	fs.StringVar(&w.Group, "group", "", "the trial's consumer group (consumers join it; producers wait for it with --wait-for-group)")
	fs.StringVar(&w.Experiment, "experiment", "", "experiment name, for metric labels")
	fs.StringVar(&w.ExperimentUID, "experiment-uid", "", "experiment UID, for metric labels")
	fs.StringVar(&w.ID, "id", "", "producer index, or consumer name (default c0)")
	fs.BoolVar(&w.WaitForGroup, "wait-for-group", false, "producer: wait until --group is Stable with all consumers")
	fs.BoolVar(&w.StartGate, "start-gate", false, "producer: once ready, wait for PUT /start?at=<Unix ns> on the metrics port (workers/control)")
	fs.IntVar(&w.StandbyIndex, "standby-index", 0, "consumer: if its name's index is at least this (> 0), wait for PUT /group/join on the metrics port before joining (workers/control)")
	fs.DurationVar(&w.WaitTimeout, "wait-timeout", DefaultWaitTimeout, "producer: how long to wait for the group, and for the start")
	fs.StringVar(&w.MetricsAddr, "metrics-addr", DefaultMetricsAddr, "where to serve /metrics; empty disables")
	fs.DurationVar(&w.MetricsGrace, "metrics-grace", DefaultMetricsGrace, "keep serving /metrics after the work ends until every scraper seen scraped once more, at most this long")
	fs.DurationVar(&w.Timeout, "timeout", 0, "stop (interrupted) after this long; 0: no limit")
	fs.DurationVar(&w.DrainTimeout, "drain-timeout", DefaultDrainTimeout, "once stopped, wait at most this long for in-flight records")
	fs.StringVar(&w.SummaryFile, "summary-file", "", "also write the summary JSON here")
	fs.StringVar(&w.TerminationLog, "termination-log", "", "write the summary here if it fits in --termination-max-bytes, else a marker saying it is in the log (Kubernetes: /dev/termination-log)")
	fs.IntVar(&w.TerminationMax, "termination-max-bytes", DefaultTerminationMax, "size limit of the termination message")
	fs.BoolVar(&w.TLS, "tls", false, "use TLS to the brokers")
	fs.StringVar(&w.TLSCAFile, "tls-ca-file", "", "PEM CA bundle for TLS (default: system roots)")
	fs.BoolVar(&w.TLSInsecure, "tls-insecure", false, "skip TLS certificate verification")
	fs.StringVar(&w.SASLMechanism, "sasl-mechanism", "", "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512; credentials from $"+SASLUserEnv+" and $"+SASLPasswordEnv)
	fs.StringVar(&w.SchemaRegistry, "schema-registry", "", "the schema registry's Confluent-compatible API, for the registry codecs (e.g. http://registry:8080/apis/ccompat/v7)")
	if err := fs.Parse(args); err != nil {
		return w, err
	}
	if fs.NArg() > 0 {
		return w, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	w.Bootstrap = strings.Split(bootstrap, ",")
	if err := json.Unmarshal([]byte(trialJSON), &w.Trial); err != nil {
		return w, fmt.Errorf("--trial: %w", err)
	}
	return w, w.Validate()
}

// Validate checks what every worker needs.
func (w Worker) Validate() error {
	t := w.Trial
	switch {
	case w.Role != RoleProducer && w.Role != RoleConsumer:
		return fmt.Errorf("--role: must be producer or consumer, got %q", w.Role)
	case t.Name == "" || t.Codec == "" || t.Partitions < 1:
		return errors.New("--trial: name, codec and partitions are required")
	case w.Topic == "":
		return errors.New("--topic is required")
	case w.Group == "":
		return errors.New("--group is required")
	case w.StartGate && w.MetricsAddr == "":
		return errors.New("--start-gate needs --metrics-addr: the start arrives there")
	case w.StandbyIndex > 0 && (w.Role != RoleConsumer || w.MetricsAddr == ""):
		return errors.New("--standby-index is a consumer's, and needs --metrics-addr: the join arrives there")
	case t.Codec.UsesRegistry() && w.SchemaRegistry == "":
		return fmt.Errorf("--trial: codec %s needs --schema-registry", t.Codec)
	}
	return nil
}

// Standby says whether the worker is a standby consumer (StandbyIndex).
func (w Worker) Standby() bool {
	var i int
	if w.StandbyIndex <= 0 || w.Role != RoleConsumer {
		return false
	}
	if _, err := fmt.Sscanf(w.ID, "c%d", &i); err != nil {
		return false
	}
	return i >= w.StandbyIndex
}
