// Command pool writes the records a producer of a trial sends, as JSON lines, for
// workers in other runtimes (workers/jvm): every runtime then sends the same data,
// generated once by workers/payload, instead of a port of its generator.
//
//	pool --trial '<trial JSON>' --id <producer index> [--records N]
//
// The first line describes the record type: {"type", "protoMessage", "protoFile",
// "avroSchema", "jsonSchema"} (the protobuf message of workers/payload/proto and its
// file's text, the Avro schema and JSON Schema the Go codecs use: the texts the
// registry variants register) and "series" (the rules a worker cuts its series and
// segments by, workers/summary's). Each further line is one record of the producer's pool in
// send order, as encoding/json writes the Go struct (the unit payload sizes are
// measured in). --records 0 writes the description alone (a consumer's need).
// Exit codes are the worker's: 0, 1 on a failure, 2 on invalid arguments.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Header is the first line pool writes.
type Header struct {
	// Type is the Go struct's name, e.g. BusinessRecordS.
	Type string `json:"type"`
	// ProtoMessage is the protobuf message's full name, ProtoFile its .proto file's text.
	ProtoMessage string `json:"protoMessage"`
	ProtoFile    string `json:"protoFile"`
	// AvroSchema is the Avro schema's text, as the Go avro codecs use it.
	AvroSchema string `json:"avroSchema"`
	// JSONSchema is the JSON Schema's text json/registry registers.
	JSONSchema string `json:"jsonSchema"`
	// Series is how a worker of another runtime cuts its measurements into
	// intervals and segments, as the Go workers do (workers/summary).
	Series SeriesRules `json:"series"`
	// Records is how many record lines follow.
	Records int `json:"records"`
}

// SeriesRules are workers/summary's rules for a summary's series and segments.
type SeriesRules struct {
	// IntervalSeconds is the buckets' width: the trial's, or the default.
	IntervalSeconds int32 `json:"intervalSeconds"`
	// MaxBuckets bounds the buckets (summary.MaxBuckets), Digits is their latency
	// histograms' precision (summary.IntervalDigits).
	MaxBuckets int `json:"maxBuckets"`
	Digits     int `json:"digits"`
	// StallMinMicros is the shortest stall (summary.StallMin), MaxSegments the
	// segments of one partition in one consumer (summary.MaxSegments).
	StallMinMicros int64 `json:"stallMinMicros"`
	MaxSegments    int   `json:"maxSegments"`
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pool", flag.ContinueOnError)
	fs.SetOutput(stderr)
	trialJSON := fs.String("trial", "", "the trial, as JSON (api/trial.Trial)")
	id := fs.Int("id", 0, "the producer's index: its pool's seed is the trial's seed plus index<<32")
	records := fs.Int("records", -1, "records to write (default: the trial's poolSize); 0 writes the description alone")
	if err := fs.Parse(args); err != nil {
		return protocol.ExitUsage
	}
	var t trial.Trial
	if err := json.Unmarshal([]byte(*trialJSON), &t); err != nil || t.Schema == "" || t.SizeBytes <= 0 || *id < 0 {
		fmt.Fprintf(stderr, "pool: --trial needs a schema and sizeBytes, --id a producer index (%v)\n", err)
		return protocol.ExitUsage
	}
	if t.Source != nil {
		fmt.Fprintln(stderr, "pool: a trial of the user's own records (payload.source) has its records in its samples file")
		return protocol.ExitUsage
	}
	n := int(t.PoolSize)
	if *records >= 0 {
		n = *records
	}
	if err := write(bufio.NewWriter(stdout), t, *id, n); err != nil {
		fmt.Fprintf(stderr, "pool: %v\n", err)
		return protocol.ExitFailed
	}
	return protocol.ExitOK
}

func write(w *bufio.Writer, t trial.Trial, id, n int) error {
	schema, err := payload.Lookup(t.Schema)
	if err != nil {
		return err
	}
	typ := schema.TypeFor(int(t.SizeBytes))
	h := Header{Type: typ.Name, Records: n, Series: SeriesRules{
		IntervalSeconds: t.IntervalSecondsOrDefault(), MaxBuckets: summary.MaxBuckets, Digits: summary.IntervalDigits,
		StallMinMicros: summary.StallMin.Microseconds(), MaxSegments: summary.MaxSegments,
	}}
	if typ.Proto != nil {
		d := typ.Proto().ProtoReflect().Descriptor()
		h.ProtoMessage = string(d.FullName())
		if h.ProtoFile, err = payload.ProtoFile(d.ParentFile().Path()); err != nil {
			return err
		}
	}
	if goType := reflect.TypeOf(typ.New()).Elem(); goType.Kind() == reflect.Struct {
		if h.AvroSchema, err = codec.AvroSchema(goType); err != nil {
			return err
		}
		if h.JSONSchema, err = codec.JSONSchema(goType); err != nil {
			return err
		}
	}
	var pool []any
	if n > 0 {
		if pool, err = schema.Pool(payload.ProducerSeed(t.Seed, id), int(t.SizeBytes), n); err != nil {
			return err
		}
	}
	enc := json.NewEncoder(w) // one line each, as json.Marshal writes them
	if err := enc.Encode(h); err != nil {
		return fmt.Errorf("write the description: %w", err)
	}
	for i, rec := range pool {
		if err := enc.Encode(rec); err != nil {
			return fmt.Errorf("write record %d: %w", i, err)
		}
	}
	return errors.Join(w.Flush())
}
