package protocol

import (
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/serdebench/serdebench/api/trial"
)

// TestWorkerArgsRoundTrip: the operator renders a Worker into a container's
// arguments (Args) and the worker reads them back (Parse); the two flag lists are
// written separately, so every field must survive the trip.
func TestWorkerArgsRoundTrip(t *testing.T) {
	for _, w := range []Worker{
		{Role: RoleProducer, Trial: trial.Trial{Name: "t000-json-512b", Codec: "json", Partitions: 3, Records: 10, ExistingTopic: "orders"},
			Bootstrap: []string{"a:9092", "b:9092"}, Topic: "orders", Group: "sx.x.u.t000-json-512b.consumers", Experiment: "x", ExperimentUID: "u",
			ID: "0", WaitForGroup: true, WaitTimeout: time.Minute, MetricsAddr: ":9091", MetricsGrace: 3 * time.Second,
			Timeout: time.Hour, DrainTimeout: 2 * time.Second, SummaryFile: "/tmp/s.json", TerminationLog: "/dev/termination-log",
			TerminationMax: 1024, TLS: true, TLSInsecure: true, TLSCAFile: "/etc/ca.pem", SASLMechanism: "PLAIN"},
		{Role: RoleConsumer, Trial: trial.Trial{Name: "t001-avro-512b", Codec: "avro", Partitions: 1}, Bootstrap: []string{"k:9092"},
			Topic: "t", Group: "g", ID: "c1", WaitTimeout: DefaultWaitTimeout, MetricsGrace: DefaultMetricsGrace,
			DrainTimeout: DefaultDrainTimeout, TerminationMax: DefaultTerminationMax},
	} {
		args, err := w.Args()
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(args, io.Discard)
		if err != nil {
			t.Fatalf("parse %v: %v", args, err)
		}
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("round trip changed the worker (-sent +parsed):\n%s", diff)
		}
	}
}

// TestSourceCheckArgsRoundTrip: the operator renders a source check into a
// container's arguments and the worker reads it back whole.
func TestSourceCheckArgsRoundTrip(t *testing.T) {
	c := SourceCheck{Source: trial.Source{Format: "protobuf", Message: "Order", SchemaFile: "/etc/s/schema", SamplesFile: "/etc/s/samples.jsonl"},
		Codecs: []trial.Codec{"json", "protobuf"}, TerminationLog: "/dev/termination-log"}
	args := c.Args()
	if args[0] != CheckCommand {
		t.Fatalf("first argument %q", args[0])
	}
	got, err := ParseCheck(args[1:], io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, got); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
	if _, err := ParseCheck([]string{"--format=avro", "--schema=s", "--samples=x"}, io.Discard); err == nil {
		t.Fatal("no codecs: want an error")
	}
}

// TestStandby: a consumer is a standby from --standby-index on, by the index in
// its name (c<index>, as the Job expands it); a consumer below it, a producer, or
// a name that is no consumer's index is not, nor is any worker without the flag.
func TestStandby(t *testing.T) {
	for _, c := range []struct {
		role, id string
		index    int
		want     bool
	}{
		{RoleConsumer, "c2", 2, true},
		{RoleConsumer, "c3", 2, true},
		{RoleConsumer, "c1", 2, false},
		{RoleConsumer, "c0", 0, false},
		{RoleConsumer, "c2", 0, false},
		{RoleConsumer, "consumer-2", 2, false},
		{RoleConsumer, "c$(JOB_COMPLETION_INDEX)", 2, false},
		{RoleProducer, "2", 2, false},
	} {
		w := Worker{Role: c.role, ID: c.id, StandbyIndex: c.index}
		if got := w.Standby(); got != c.want {
			t.Errorf("%s %s with --standby-index %d: standby %v, want %v", c.role, c.id, c.index, got, c.want)
		}
	}
}
