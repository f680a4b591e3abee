package codec_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/source"
)

const ownSchema = "../../config/samples/own-schema/"

func loadSource(t *testing.T, format string) *source.Set {
	t.Helper()
	files := map[string]string{source.Avro: "order.avsc", source.Protobuf: "order.proto", source.JSONSchema: "order.schema.json"}
	s, err := source.Load(trial.Source{Format: format, Message: "Order", SchemaFile: ownSchema + files[format], SamplesFile: ownSchema + "orders.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSourceRoundTrips: every codec that works from a schema at run time gives back
// every one of the user's records, for each schema format it accepts; the others
// refuse with a message that says why.
func TestSourceRoundTrips(t *testing.T) {
	for _, format := range []string{source.Avro, source.Protobuf, source.JSONSchema} {
		s := loadSource(t, format)
		sizes := map[string]float64{}
		for _, name := range codec.Names() {
			size, err := codec.CheckSource(name, s)
			dynamic := slices.Contains(codec.DynamicNames(), name)
			switch {
			case strings.HasSuffix(name, codec.RegistrySuffix):
				// A registry variant registers the source's schema: only its format's.
				fits := map[string]string{source.Avro: "avro/registry", source.Protobuf: "protobuf/registry", source.JSONSchema: "json/registry"}[format] == name
				if fits != (err == nil) {
					t.Errorf("%s with a %s source: %v", name, format, err)
				}
			case name == "avro" && format != source.Avro, name == "protobuf" && format != source.Protobuf:
				if err == nil || !strings.Contains(err.Error(), "schema (.") {
					t.Errorf("%s with a %s source: got %v, want a schema-format error", name, format, err)
				}
			case dynamic && err != nil:
				t.Errorf("%s with a %s source: %v", name, format, err)
			case dynamic:
				sizes[name] = size
			case err == nil || !strings.Contains(err.Error(), "needs code generated from the schema"):
				t.Errorf("%s with a %s source: got %v, want the generated-code error", name, format, err)
			}
		}
		t.Logf("%s source: mean encoded bytes %v", format, sizes)
		// The schema formats are smaller than the self-describing ones on these orders.
		if format == source.Avro && !(sizes["avro"] < sizes["msgpack"] && sizes["msgpack"] < sizes["json"]) {
			t.Errorf("avro source: want avro < msgpack < json, got %v", sizes)
		}
		if format == source.Protobuf && !(sizes["protobuf"] < sizes["cbor"] && sizes["cbor"] < sizes["json"]) {
			t.Errorf("protobuf source: want protobuf < cbor < json, got %v", sizes)
		}
	}
}
