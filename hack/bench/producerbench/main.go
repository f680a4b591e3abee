// Command producerbench runs serdebench's producer worker alone (no consumers) on a
// fresh topic — the Go worker in this process, the JVM worker as its own — and
// prints its throughput as JSON, for hack/bench/producer-vs-kafka.sh
// to set beside Kafka's ProducerPerformance with the same settings.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/workers/producer"
	"github.com/serdebench/serdebench/workers/protocol"
	workerrun "github.com/serdebench/serdebench/workers/run"
	"github.com/serdebench/serdebench/workers/summary"
)

func main() {
	if err := benchMain(); err != nil {
		fmt.Fprintln(os.Stderr, "producerbench:", err)
		os.Exit(1)
	}
}

func benchMain() error {
	bootstrap := flag.String("bootstrap", "127.0.0.1:9092", "Kafka bootstrap server")
	codecName := flag.String("codec", "json", "codec")
	schema := flag.String("schema", "business-record", "payload schema")
	size := flag.Int("size", 1176, "payload size (JSON bytes)")
	records := flag.Int64("records", 100000, "measured records")
	warmup := flag.Int64("warmup", 10000, "warmup records")
	batch := flag.Int("batch-size", 100000, "batch size in bytes")
	linger := flag.Int("linger-ms", 100, "linger in ms")
	acks := flag.String("acks", "1", "acks")
	compression := flag.String("compression", "none", "compression")
	client := flag.String("client", "sarama", "Kafka client: sarama, franz-go, librdkafka, or java (the JVM worker, a process: bin/worker-jvm or $SERDEBENCH_JVM_WORKER)")
	headers := flag.String("headers", "compact", "serdebench's record headers: full or compact (ProducerPerformance sends none)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run here")
	memprofile := flag.String("memprofile", "", "write an allocation profile here")
	flag.Parse()
	// The worker process's collector setting, as in its pod.
	workerrun.TuneGC(os.Getenv)
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *memprofile != "" {
		runtime.MemProfileRate = 4096
	}
	if err := run(*bootstrap, *codecName, *schema, *size, *records, *warmup, *batch, *linger, *acks, *compression, trial.Client(*client), trial.Headers(*headers)); err != nil {
		return err
	}
	if *memprofile != "" {
		f, err := os.Create(*memprofile)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		return pprof.Lookup("allocs").WriteTo(f, 0)
	}
	return nil
}

func run(bootstrap, codecName, schema string, size int, records, warmup int64, batch, linger int, acks, compression string, client trial.Client, headers trial.Headers) error {
	b, l := int32(batch), int32(linger)
	trials, err := plan.Expand(v1alpha1.ExperimentSpec{
		Codecs:   []trial.Codec{trial.Codec(codecName)},
		Payload:  v1alpha1.PayloadSpec{Schema: schema, SizesBytes: []int32{int32(size)}, Headers: headers},
		Producer: v1alpha1.ProducerSettings{BatchSizeBytes: &b, LingerMs: &l, Acks: trial.Acks(acks), Compression: trial.Compression(compression)},
		Client:   client,
		Records:  &records,
		Warmup:   trial.Warmup{Records: warmup},
	})
	if err != nil {
		return err
	}
	t := trials[0]
	brokers := []string{bootstrap}
	topic := fmt.Sprintf("serdebench.bench.%s.%d", t.Name, time.Now().UnixNano())
	if err := runner.CreateTopic(brokers, topic, t); err != nil {
		return err
	}
	defer func() { _ = runner.DeleteTopic(brokers, topic) }()
	// Warnings only: the script reads stdout, and its table is on the terminal.
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var sum *summary.Summary
	if client.Runtime() == trial.RuntimeGo {
		sum, err = producer.Run(context.Background(), producer.Config{Brokers: brokers, Topic: topic, Experiment: "bench", Trial: t, Log: log})
	} else {
		// Another runtime's worker is a process of its own, as in a pod.
		sum, err = runner.RunWorker(context.Background(), protocol.Worker{Role: protocol.RoleProducer, ID: "0", Trial: t, Bootstrap: brokers, Topic: topic,
			Group: topic + ".consumers", Experiment: "bench", ExperimentUID: "bench", WaitTimeout: time.Minute, DrainTimeout: protocol.DefaultDrainTimeout},
			runner.Options{Log: log})
	}
	if err != nil {
		return err
	}
	r, err := summary.Merge([]*summary.Summary{sum})
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"codec": codecName, "client": client, "serializedBytesPerRecord": r.SerializedBytesPerRecord, "recordsPerSecond": r.RecordsPerSecond,
		"serializedMBPerSecond": r.SerializedMBPerSecond, "headerBytesPerRecord": r.HeaderBytesPerRecord, "serializeMicrosPerRecord": r.SerializeMicrosPerRecord,
		"ackP99Micros": r.Ack.P99, "clientStats": sum.Client,
	})
}
