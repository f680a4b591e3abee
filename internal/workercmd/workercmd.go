// Package workercmd is the worker command: flag parsing and the run, shared by
// cmd/worker and by tests that run a Job's exact arguments in-process.
package workercmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/serdebench/serdebench/internal/kafkaconn"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/summary"
	"github.com/serdebench/serdebench/workers/consumer"
	"github.com/serdebench/serdebench/workers/metrics"
	"github.com/serdebench/serdebench/workers/producer"
)

type options struct {
	role, trialJSON, bootstrap, topic, group, experiment, name string
	id                                                         int
	metricsAddr, summaryFile, waitGroup, terminationLog        string
	tlsCAFile, saslMechanism                                   string
	tls, tlsInsecure                                           bool
	terminationMax                                             int
	metricsGrace, timeout, waitTimeout                         time.Duration
}

// Main runs the worker with args (without the program name) until it finishes or ctx
// ends (SIGTERM in cmd/worker), printing the summary to stdout and logs to stderr.
// It returns the process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return MainEnv(ctx, args, os.Getenv, stdout, stderr)
}

// MainEnv is Main with the environment read through getenv (the SASL credentials).
func MainEnv(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	var o options
	flag := flag.NewFlagSet("worker", flag.ContinueOnError)
	flag.SetOutput(stderr)
	flag.StringVar(&o.role, "role", "", "producer or consumer")
	flag.StringVar(&o.trialJSON, "trial", "", "the trial to run, as JSON (internal/plan.Trial)")
	flag.StringVar(&o.bootstrap, "bootstrap", "127.0.0.1:9092", "comma-separated Kafka bootstrap servers")
	flag.StringVar(&o.topic, "topic", "", "the trial's topic")
	flag.StringVar(&o.group, "group", "", "consumer group (consumer), or group to wait for (producer, with --wait-group)")
	flag.StringVar(&o.experiment, "experiment", "", "experiment name, for labels")
	flag.StringVar(&o.name, "name", "", "consumer name (default c<id>)")
	flag.IntVar(&o.id, "id", 0, "producer index within the trial")
	flag.StringVar(&o.metricsAddr, "metrics-addr", ":9090", "where to serve /metrics; empty disables")
	flag.DurationVar(&o.metricsGrace, "metrics-grace", 15*time.Second, "keep serving /metrics this long after the work ends")
	flag.StringVar(&o.summaryFile, "summary-file", "", "also write the summary JSON here")
	flag.StringVar(&o.waitGroup, "wait-group", "", "producer: wait until this consumer group is Stable with all consumers")
	flag.DurationVar(&o.waitTimeout, "wait-timeout", 2*time.Minute, "producer: how long to wait for --wait-group")
	flag.DurationVar(&o.timeout, "timeout", 0, "stop after this long (0: no limit)")
	flag.StringVar(&o.terminationLog, "termination-log", "", "write the summary here if it fits in --termination-max-bytes, else a marker saying it is in the log (Kubernetes: /dev/termination-log)")
	flag.IntVar(&o.terminationMax, "termination-max-bytes", 4096, "size limit of the termination message")
	flag.BoolVar(&o.tls, "tls", false, "use TLS to the brokers")
	flag.StringVar(&o.tlsCAFile, "tls-ca-file", "", "PEM CA bundle for TLS (default: system roots)")
	flag.BoolVar(&o.tlsInsecure, "tls-insecure", false, "skip TLS certificate verification")
	flag.StringVar(&o.saslMechanism, "sasl-mechanism", "", "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512; credentials from $SERDEBENCH_SASL_USERNAME and $SERDEBENCH_SASL_PASSWORD")
	if err := flag.Parse(args); err != nil {
		return 2
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	if err := run(ctx, o, log, getenv, stdout); err != nil {
		log.Error("worker failed", "role", o.role, "err", err)
		return 1
	}
	return 0
}

func run(ctx context.Context, o options, log *slog.Logger, getenv func(string) string, stdout io.Writer) error {
	var t plan.Trial
	if err := json.Unmarshal([]byte(o.trialJSON), &t); err != nil {
		return fmt.Errorf("--trial: %w", err)
	}
	if t.Name == "" || t.Codec == "" || t.Partitions < 1 {
		return errors.New("--trial: name, codec and partitions are required")
	}
	if o.topic == "" {
		return errors.New("--topic is required")
	}
	if o.name == "" {
		o.name = fmt.Sprintf("c%d", o.id)
	}
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	worker := o.name
	if o.role == summary.RoleProducer {
		worker = fmt.Sprint(o.id)
	}
	m := metrics.New(metrics.Labels{Experiment: o.experiment, Trial: t.Name, Codec: string(t.Codec), Role: o.role, Worker: worker})
	workDone, finish := context.WithCancel(context.Background())
	wait := func() {}
	if o.metricsAddr != "" {
		addr, w, err := m.Serve(workDone, o.metricsAddr, o.metricsGrace)
		if err != nil {
			finish()
			return err
		}
		wait = w
		log.Info("serving metrics", "addr", addr)
	}
	brokers := strings.Split(o.bootstrap, ",")
	sec := kafkaconn.Security{TLS: o.tls, InsecureSkipVerify: o.tlsInsecure, SASLMechanism: o.saslMechanism,
		Username: getenv("SERDEBENCH_SASL_USERNAME"), Password: getenv("SERDEBENCH_SASL_PASSWORD")}
	if o.tlsCAFile != "" {
		ca, err := os.ReadFile(o.tlsCAFile)
		if err != nil {
			finish()
			return fmt.Errorf("--tls-ca-file: %w", err)
		}
		sec.CAPEM = ca
	}
	var sum *summary.Summary
	var err error
	switch o.role {
	case summary.RoleProducer:
		sum, err = producer.Run(ctx, producer.Config{Brokers: brokers, Topic: o.topic, Experiment: o.experiment, Trial: t, ID: o.id,
			WaitGroup: o.waitGroup, WaitTimeout: o.waitTimeout, Metrics: m, Log: log, Security: sec})
	case summary.RoleConsumer:
		if o.group == "" {
			err = errors.New("--group is required for consumers")
			break
		}
		sum, err = consumer.Run(ctx, consumer.Config{Brokers: brokers, Topic: o.topic, Group: o.group, Experiment: o.experiment,
			Trial: t, Name: o.name, Metrics: m, Log: log, Security: sec})
	default:
		err = fmt.Errorf("--role: must be producer or consumer, got %q", o.role)
	}
	if sum != nil {
		if werr := writeSummary(stdout, sum, o.summaryFile, o.terminationLog, o.terminationMax); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	// Stop serving only after the grace period, so a final scrape sees the totals.
	finish()
	if sum != nil {
		wait()
	}
	return err
}

// writeSummary prints the summary as the last line of stdout and writes it to file;
// the termination log gets the summary when it fits, else summary.InLogMarker.
func writeSummary(stdout io.Writer, sum *summary.Summary, file, terminationLog string, terminationMax int) error {
	b, err := json.Marshal(sum)
	if err != nil {
		return fmt.Errorf("encode summary: %w", err)
	}
	if _, err := fmt.Fprintln(stdout, string(b)); err != nil {
		return fmt.Errorf("print summary: %w", err)
	}
	if file != "" {
		if err := os.WriteFile(file, b, 0o644); err != nil {
			return fmt.Errorf("write summary: %w", err)
		}
	}
	if terminationLog != "" {
		msg := b
		if len(msg) > terminationMax {
			msg = []byte(summary.InLogMarker)
		}
		if err := os.WriteFile(terminationLog, msg, 0o644); err != nil {
			return fmt.Errorf("write termination log: %w", err)
		}
	}
	return nil
}
