package conformance

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/testing/registrytest"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/registry"
)

var update = flag.Bool("update", false, "rewrite the wire table's golden files (testdata/wire) from the Go codecs")

// goTwin is the Go codec that reads JVM codec c's bytes: c itself where the Go worker
// has it, plain Avro for Avro's generated classes (the same bytes), "" for the
// JVM-only serializers.
func goTwin(c trial.Codec) trial.Codec {
	switch {
	case c == trial.CodecAvroSpecific:
		return trial.CodecAvro
	case trial.ClientFranz.HasCodec(c):
		return c
	}
	return ""
}

// exactBytes are the codecs whose encoding is one byte sequence per record (Avro's
// binary encoding; protobuf's and Thrift's fields in number order; raw; Avro framed
// with the one schema id both runtimes get; FlatBuffers built field by field in the
// same order, on records without maps): there both runtimes must write the golden
// bytes exactly. (protobuf/registry is not: Confluent's Go serializer writes
// the message indexes [0] as one zero byte, Apicurio's as a count and an index.)
var exactBytes = []trial.Codec{trial.CodecAvro, trial.CodecAvroSpecific, trial.CodecProtobuf, trial.CodecRaw,
	trial.CodecThriftBinary, trial.CodecThriftCompact, trial.CodecAvroRegistry, trial.CodecFlatbuffers}

// TestWire: for every codec of the JVM worker and every built-in schema, the bytes
// each runtime writes decode equal in the other. The Go codec's bytes of the first
// records of a pool are golden files, except where they cannot be: a registry
// variant's carry the schema id the real registry gives, and the complex message's
// map has no order, so those are the Go codec's bytes of this run. The JVM worker
// reads them back to the record it writes itself (`worker-jvm wire roundtrip` prints
// its own encoding of what it decoded; with maps, the Go codec reads that encoding
// back to the pool's record), and the Go codec reads the JVM worker's bytes back to
// the pool's records. A JVM-only serializer (Java serialization, Kryo, Fory) must
// read its own bytes back to the record it wrote (its decoded object, as JSON, is the
// pool's record). The registry variants run on a new subject per schema, registered
// first by Go on half the schemas and by the JVM worker on the others. And the JVM
// worker has exactly the codecs admission says it has.
func TestWire(t *testing.T) {
	jvm := buildJVM(t)
	regURL := registrytest.URL(t)
	var codecs []string
	for _, c := range trial.RuntimeJVM.Codecs() {
		codecs = append(codecs, string(c))
	}
	// The JVM runtime's row of api/trial.Runtimes, which admission reads, is the
	// JVM worker's codec table.
	if has := lines(t, jvm, nil, "wire", "codecs"); !slices.Equal(slices.Sorted(slices.Values(has)), slices.Sorted(slices.Values(codecs))) {
		t.Fatalf("the JVM worker has the codecs %v; api/trial.Runtimes says %v", has, codecs)
	}
	for _, c := range []struct {
		schema string
		size   int32
		// goFirst: the Go codecs register the registry variants' schemas before
		// the JVM worker does (else after).
		goFirst bool
		// maps: the records hold maps, which no codec writes in one order (Go's
		// iteration order is random): no golden bytes and no byte comparisons, the
		// records each runtime reads are compared instead.
		maps bool
	}{{"business-record", 1176, true, false}, {"business-record", 4696, false, false}, {"simple", 200, false, false}, {"nested", 300, true, false},
		{"complex", 400, false, true}} {
		t.Run(fmt.Sprintf("%s-%d", c.schema, c.size), func(t *testing.T) {
			tj, _ := json.Marshal(trial.Trial{Name: "wire", Codec: trial.CodecJSON, Schema: c.schema, SizeBytes: c.size, Seed: 1, PoolSize: 5, Partitions: 1,
				Settings: trial.Settings{Client: clientJava}})
			s, err := payload.Lookup(c.schema)
			if err != nil {
				t.Fatal(err)
			}
			typ := s.TypeFor(int(c.size))
			pool, err := s.Pool(payload.ProducerSeed(1, 0), int(c.size), 5)
			if err != nil {
				t.Fatal(err)
			}
			// Whoever registers a schema first, both runtimes use one id.
			reg := newRegistry(t, regURL, registrytest.Topic(t))
			if c.goFirst {
				for _, name := range codecs {
					if twin := goTwin(trial.Codec(name)); twin.UsesRegistry() {
						encodeHex(t, reg.codec(t, twin, typ), pool)
					}
				}
			}
			jvmBytes := byCodec(t, lines(t, jvm, nil, append([]string{"wire", "encode", "--trial", string(tj), "--records", "5", "--codecs", strings.Join(codecs, ",")}, reg.args...)...))
			// The Go codec's golden bytes, or a JVM-only codec's own, for the JVM to read back.
			want := map[string][]string{}
			var stdin strings.Builder
			for _, name := range codecs {
				want[name] = jvmBytes[name]
				if twin := goTwin(trial.Codec(name)); twin.UsesRegistry() || (twin != "" && c.maps) {
					want[name] = encodeHex(t, reg.codec(t, twin, typ), pool)
				} else if twin != "" {
					want[name] = golden(t, twin, typ, pool, fmt.Sprintf("%s-%d-%s.hex", c.schema, c.size, twin))
				}
				for _, h := range want[name] {
					fmt.Fprintf(&stdin, "%s %s\n", name, h)
				}
			}
			back := byCodec(t, lines(t, jvm, []byte(stdin.String()), append([]string{"wire", "roundtrip", "--trial", string(tj), "--codecs", strings.Join(codecs, ",")}, reg.args...)...))
			// What the JVM-only codecs' bytes decode to, as JSON: no Go codec reads them.
			var own []string
			var ownIn strings.Builder
			for _, name := range codecs {
				if goTwin(trial.Codec(name)) == "" {
					own = append(own, name)
					for _, h := range jvmBytes[name] {
						fmt.Fprintf(&ownIn, "%s %s\n", name, h)
					}
				}
			}
			decoded := byCodec(t, lines(t, jvm, []byte(ownIn.String()), "wire", "decode", "--trial", string(tj), "--codecs", strings.Join(own, ",")))
			for _, name := range codecs {
				t.Run(strings.ReplaceAll(name, "/", "-"), func(t *testing.T) {
					if len(jvmBytes[name]) != len(pool) || len(back[name]) != len(pool) {
						t.Fatalf("the JVM worker wrote %d records and read back %d, of %d", len(jvmBytes[name]), len(back[name]), len(pool))
					}
					twin := goTwin(trial.Codec(name))
					for i, rec := range pool {
						if !c.maps && slices.Contains(exactBytes, trial.Codec(name)) && jvmBytes[name][i] != want[name][i] {
							t.Errorf("record %d: the JVM worker writes\n%s\nthe Go codec\n%s", i, jvmBytes[name][i], want[name][i])
						}
						if !c.maps && back[name][i] != jvmBytes[name][i] {
							t.Errorf("record %d: the JVM worker read the bytes back to another record: it writes\n%s\nfor it, and\n%s\nfor the pool's", i, back[name][i], jvmBytes[name][i])
						}
						if twin != "" {
							goReads(t, reg.codec(t, twin, typ), i, jvmBytes[name][i], rec)
							if c.maps { // what the JVM worker read the Go bytes to, written again
								goReads(t, reg.codec(t, twin, typ), i, back[name][i], rec)
							}
						} else {
							sameRecord(t, typ, i, decoded[name], rec)
						}
					}
				})
			}
		})
	}
}

// golden returns the Go codec's hex bytes of the pool's records, checked against (or,
// with -update, written to) testdata/wire/file.
func golden(t *testing.T, name trial.Codec, typ payload.Type, pool []any, file string) []string {
	t.Helper()
	goc, err := codec.New(string(name), typ)
	if err != nil {
		t.Fatal(err)
	}
	goBytes := encodeHex(t, goc, pool)
	path := filepath.Join("testdata", "wire", file)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Join(goBytes, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./workers/conformance -run TestWire -args -update writes it)", err)
	}
	want := strings.Fields(string(raw))
	if strings.Join(want, "\n") != strings.Join(goBytes, "\n") {
		t.Fatalf("the Go codec no longer writes %s: a library or schema changed the bytes (-update if that is meant)", path)
	}
	return want
}

// wireRegistry is the registry and subject one schema's registry variants use in both
// runtimes.
type wireRegistry struct {
	client *registry.Client
	topic  string
	// args give the JVM worker's wire tool the same.
	args []string
}

func newRegistry(t *testing.T, url, topic string) wireRegistry {
	t.Helper()
	c, err := registry.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	return wireRegistry{client: c, topic: topic, args: []string{"--schema-registry", url, "--topic", topic}}
}

// codec is the Go codec name for typ; a registry variant's subject is that of topic
// <topic>.<format>, as the JVM worker's wire tool names it.
func (r wireRegistry) codec(t *testing.T, name trial.Codec, typ payload.Type) codec.Codec {
	t.Helper()
	format, _ := strings.CutSuffix(string(name), trial.RegistrySuffix)
	goc, err := codec.NewWith(string(name), typ, codec.Options{Registry: r.client, Topic: r.topic + "." + format})
	if err != nil {
		t.Fatal(err)
	}
	return goc
}

// encodeHex is the Go codec goc's hex bytes of the pool's records.
func encodeHex(t *testing.T, goc codec.Codec, pool []any) []string {
	t.Helper()
	var out []string
	for _, rec := range pool {
		n, err := goc.Native(rec)
		if err != nil {
			t.Fatal(err)
		}
		b, err := goc.Marshal(nil, n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, hex.EncodeToString(b))
	}
	return out
}

// goReads checks that the Go codec goc reads the JVM worker's bytes of record i
// back to the pool's record rec.
func goReads(t *testing.T, goc codec.Codec, i int, hexBytes string, rec any) {
	t.Helper()
	name := goc.Name()
	b, err := hex.DecodeString(hexBytes)
	if err != nil {
		t.Fatal(err)
	}
	n, err := goc.Unmarshal(b, goc.NewNative())
	if err != nil {
		t.Fatalf("record %d: the Go codec %s cannot read the JVM worker's bytes: %v", i, name, err)
	}
	got, err := goc.Record(n)
	if err != nil {
		t.Fatal(err)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(rec)
	if !bytes.Equal(gj, wj) {
		t.Errorf("record %d: the Go codec %s reads the JVM worker's bytes as\n%s\nnot\n%s", i, name, gj, wj)
	}
}

// sameRecord checks that the JSON a JVM-only codec decoded record i to is the pool's
// record rec, read as the Go struct reads it.
func sameRecord(t *testing.T, typ payload.Type, i int, decoded []string, rec any) {
	t.Helper()
	if i >= len(decoded) {
		t.Fatalf("record %d: the JVM worker decoded %d records", i, len(decoded))
	}
	got := typ.New()
	if err := json.Unmarshal([]byte(decoded[i]), got); err != nil {
		t.Fatalf("record %d: the JVM worker's JSON %s: %v", i, decoded[i], err)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(rec)
	if !bytes.Equal(gj, wj) {
		t.Errorf("record %d: the JVM worker reads its own bytes as\n%s\nnot\n%s", i, gj, wj)
	}
}

// byCodec groups `wire` output lines ("<codec> <hex>") by codec.
func byCodec(t *testing.T, ls []string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, l := range ls {
		name, h, ok := strings.Cut(l, " ")
		if !ok {
			t.Fatalf("wire line %q is not <codec> <hex>", l)
		}
		out[name] = append(out[name], h)
	}
	return out
}

// wireTimeout bounds one run of the wire tool (seconds on a quiet machine).
const wireTimeout = 2 * time.Minute

// lines runs the command with stdin and returns its stdout's non-empty lines. One
// that has not ended in wireTimeout gets SIGQUIT (a JVM prints its threads), then is
// killed, and the test fails with its stderr.
func lines(t *testing.T, argv []string, stdin []byte, args ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wireTimeout)
	defer cancel()
	cmd := osexec.CommandContext(ctx, argv[0], append(argv[1:], args...)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGQUIT) }
	cmd.WaitDelay = 5 * time.Second
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("%s: not ended in %s (%v); its stderr, threads included:\n%s", strings.Join(args[:2], " "), wireTimeout, err, stderr.String())
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args[:2], " "), err, tail(stderr.String()))
	}
	var ls []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			ls = append(ls, l)
		}
	}
	return ls
}
