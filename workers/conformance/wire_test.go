package conformance

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/payload"
)

var update = flag.Bool("update", false, "rewrite the wire table's golden files (testdata/wire) from the Go codecs")

// wireCodecs are the codecs both runtimes have: the wire table's columns.
var wireCodecs = []trial.Codec{trial.CodecJSON, trial.CodecAvro, trial.CodecProtobuf, trial.CodecMsgpack}

// TestWire: for every codec both runtimes have and every built-in schema with a
// stable encoding (the complex message's map has no order), the bytes each runtime
// writes decode equal in the other. The Go codec's bytes of the first records of a
// pool are golden files; the JVM worker reads them back to the record it writes
// itself (`worker-jvm wire roundtrip` prints its own encoding of what it decoded),
// and the Go codec reads the JVM worker's bytes back to the pool's records. Avro's
// binary encoding and protobuf's (fields in number order) are one byte sequence per
// record: there both runtimes must write the golden bytes exactly.
func TestWire(t *testing.T) {
	jvm := buildJVM(t)
	for _, c := range []struct {
		schema string
		size   int32
	}{{"business-record", 1176}, {"business-record", 4696}, {"simple", 200}, {"nested", 300}} {
		for _, name := range wireCodecs {
			t.Run(fmt.Sprintf("%s-%d/%s", c.schema, c.size, name), func(t *testing.T) {
				tj, _ := json.Marshal(trial.Trial{Name: "wire", Codec: name, Schema: c.schema, SizeBytes: c.size, Seed: 1, PoolSize: 5, Partitions: 1,
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
				goc, err := codec.New(string(name), typ)
				if err != nil {
					t.Fatal(err)
				}
				var goBytes []string
				for _, rec := range pool {
					n, err := goc.Native(rec)
					if err != nil {
						t.Fatal(err)
					}
					b, err := goc.Marshal(nil, n)
					if err != nil {
						t.Fatal(err)
					}
					goBytes = append(goBytes, hex.EncodeToString(b))
				}
				golden := filepath.Join("testdata", "wire", fmt.Sprintf("%s-%d-%s.hex", c.schema, c.size, name))
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, []byte(strings.Join(goBytes, "\n")+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				raw, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (go test ./workers/conformance -run TestWire -args -update writes it)", err)
				}
				want := strings.Fields(string(raw))
				if strings.Join(want, "\n") != strings.Join(goBytes, "\n") {
					t.Fatalf("the Go codec no longer writes %s: a library or schema changed the bytes (-update if that is meant)", golden)
				}
				jvmBytes := lines(t, jvm, nil, "wire", "encode", "--trial", string(tj), "--records", "5")
				back := lines(t, jvm, []byte(strings.Join(want, "\n")+"\n"), "wire", "roundtrip", "--trial", string(tj))
				if len(jvmBytes) != len(want) || len(back) != len(want) {
					t.Fatalf("the JVM worker wrote %d records and read back %d, of %d", len(jvmBytes), len(back), len(want))
				}
				exactBytes := name == trial.CodecAvro || name == trial.CodecProtobuf
				for i, rec := range pool {
					if exactBytes && jvmBytes[i] != want[i] {
						t.Errorf("record %d: the JVM worker writes\n%s\nthe Go codec\n%s", i, jvmBytes[i], want[i])
					}
					if back[i] != jvmBytes[i] {
						t.Errorf("record %d: the JVM worker read the Go codec's bytes back to another record: it writes\n%s\nfor it, and\n%s\nfor the pool's", i, back[i], jvmBytes[i])
					}
					b, err := hex.DecodeString(jvmBytes[i])
					if err != nil {
						t.Fatal(err)
					}
					n, err := goc.Unmarshal(b, goc.NewNative())
					if err != nil {
						t.Fatalf("record %d: the Go codec cannot read the JVM worker's bytes: %v", i, err)
					}
					got, err := goc.Record(n)
					if err != nil {
						t.Fatal(err)
					}
					gj, _ := json.Marshal(got)
					wj, _ := json.Marshal(rec)
					if !bytes.Equal(gj, wj) {
						t.Errorf("record %d: the Go codec reads the JVM worker's bytes as\n%s\nnot\n%s", i, gj, wj)
					}
				}
			})
		}
	}
}

// lines runs the command with stdin and returns its stdout's non-empty lines.
func lines(t *testing.T, argv []string, stdin []byte, args ...string) []string {
	t.Helper()
	cmd := osexec.Command(argv[0], append(argv[1:], args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args[:2], " "), err, tail(stderr.String()))
	}
	return strings.Fields(string(out))
}
