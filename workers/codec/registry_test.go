package codec_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/serdebench/serdebench/internal/testing/registrytest"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/registry"
	"github.com/serdebench/serdebench/workers/source"
)

// newCodec returns the named codec; a registry variant gets a client of the real
// registry (registrytest) and a topic no other test used, so every test over
// codec.Names() covers the registry variants against the real registry too.
func newCodec(tb testing.TB, name string, typ payload.Type) (codec.Codec, error) {
	tb.Helper()
	if !strings.HasSuffix(name, codec.RegistrySuffix) {
		return codec.New(name, typ)
	}
	reg, err := registry.New(tb.Context(), registrytest.URL(tb))
	if err != nil {
		return nil, err
	}
	return codec.NewWith(name, typ, codec.Options{Registry: reg, Topic: registrytest.Topic(tb)})
}

// TestRegistryVariants: against the real registry, each registry variant's value
// is exactly the wire format's header (magic byte, the id the registry gave the
// codec's schema, the protobuf message's indexes) followed by its format's own
// encoding (its plain codec reads it); the registry gives the schema back by that id; a
// consumer with its own client reads the producer's values, and refuses a value
// written with another schema's id; a JSON value fits the registered JSON
// Schema. Lookups after the first are cache hits: no further requests.
func TestRegistryVariants(t *testing.T) {
	url := registrytest.URL(t)
	for _, schemaName := range payload.Structured() {
		schema, _ := payload.Lookup(schemaName)
		for _, size := range sizes {
			typ := schema.TypeFor(size)
			pool, err := schema.Pool(5, size, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range codec.RegistryNames() {
				format := strings.TrimSuffix(name, codec.RegistrySuffix)
				topic := registrytest.Topic(t)
				prod, cons := client(t, url), client(t, url)
				p, err := codec.NewWith(name, typ, codec.Options{Registry: prod, Topic: topic})
				if err != nil {
					t.Fatal(err)
				}
				c, err := codec.NewWith(name, typ, codec.Options{Registry: cons, Topic: topic})
				if err != nil {
					t.Fatal(err)
				}
				plain, err := codec.New(format, typ)
				if err != nil {
					t.Fatal(err)
				}
				var id int
				for i, rec := range pool {
					native, _ := p.Native(rec)
					b, err := p.Marshal(nil, native)
					if err != nil {
						t.Fatalf("%s %s/%d: %v", name, schemaName, size, err)
					}
					gotID, indexes, body, err := registry.ParseHeader(b, format == "protobuf")
					if err != nil {
						t.Fatal(err)
					}
					if i == 0 {
						id = gotID
						checkRegistered(t, client(t, url), id, format)
					}
					if gotID != id || (format == "protobuf") != (len(indexes) > 0) {
						t.Fatalf("%s: record %d has id %d and indexes %v, the first had id %d", name, i, gotID, indexes, id)
					}
					// The body is the format's own encoding: its plain codec reads it
					// (bytes differ where a map's order is Go's).
					if pb, err := plain.Unmarshal(body, plain.NewNative()); err != nil {
						t.Fatalf("%s %s/%d record %d: %s cannot read the body: %v", name, schemaName, size, i, format, err)
					} else if got, _ := plain.Record(pb); !cmp.Equal(rec, got, equalOpts(format)...) {
						t.Fatalf("%s %s/%d record %d: the body is not %s's encoding of it", name, schemaName, size, i, format)
					}
					if format == "json" {
						validJSON(t, typ, body)
					}
					back, err := c.Unmarshal(b, c.NewNative())
					if err != nil {
						t.Fatalf("%s %s/%d record %d: %v", name, schemaName, size, i, err)
					}
					got, err := c.Record(back)
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(rec, got, equalOpts(format)...); d != "" {
						t.Fatalf("%s %s/%d record %d: round trip differs:\n%s", name, schemaName, size, i, d)
					}
				}
				// The producer registered once; the consumer looked the id up and
				// checked it is its schema's, once each.
				if n, _ := prod.Requests(); n != 1 {
					t.Errorf("%s: the producer sent %d requests for %d records, want 1", name, n, len(pool))
				}
				if n, _ := cons.Requests(); n != 2 {
					t.Errorf("%s: the consumer sent %d requests for %d records, want 2", name, n, len(pool))
				}
				// A value with another schema's id is refused.
				other := registry.AppendHeader(nil, id+1000, nil)
				if _, err := c.Unmarshal(append(other, 0), c.NewNative()); err == nil {
					t.Errorf("%s: a value with an unknown id decoded", name)
				}
			}
		}
	}
}

// TestRegistryRefusesForeignSchema: a consumer whose schema is another one than
// the value's writer's (a different record type under the same subject) refuses
// the value and names both ids.
func TestRegistryRefusesForeignSchema(t *testing.T) {
	url := registrytest.URL(t)
	simple, _ := payload.Lookup(payload.SimpleSchema)
	nested, _ := payload.Lookup(payload.NestedSchema)
	topic := registrytest.Topic(t)
	p, err := codec.NewWith("avro/registry", simple.TypeFor(256), codec.Options{Registry: client(t, url), Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	pool, _ := simple.Pool(1, 256, 1)
	native, _ := p.Native(pool[0])
	b, err := p.Marshal(nil, native)
	if err != nil {
		t.Fatal(err)
	}
	// The nested record's schema, registered under the same subject (the
	// registry's default compatibility lets it).
	reg := client(t, url)
	c, err := codec.NewWith("avro/registry", nested.TypeFor(256), codec.Options{Registry: reg, Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := c.Native(mustPool(t, nested)[0])
	if _, err := c.Marshal(nil, n); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Unmarshal(b, c.NewNative()); err == nil || !strings.Contains(err.Error(), "not this codec's") {
		t.Errorf("a value of another schema: %v, want a refusal", err)
	}
}

// TestRegistrySource: a user's own schema (payload.source) registers as it is
// written, in each format, and its records round-trip through the registry
// variant of that format; another format's variant refuses it.
func TestRegistrySource(t *testing.T) {
	url := registrytest.URL(t)
	for format, name := range map[string]string{source.Avro: "avro/registry", source.Protobuf: "protobuf/registry", source.JSONSchema: "json/registry"} {
		s := loadSource(t, format)
		typ := payload.Type{Name: s.Name, Source: s}
		reg := client(t, url)
		c, err := codec.NewWith(name, typ, codec.Options{Registry: reg, Topic: registrytest.Topic(t)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, rec := range s.Records {
			native, err := c.Native(rec)
			if err != nil {
				t.Fatal(err)
			}
			b, err := c.Marshal(nil, native)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				id, _, _, _ := registry.ParseHeader(b, format == source.Protobuf)
				w, err := reg.Writer("", id)
				if err != nil || w.Text != s.Schema {
					t.Fatalf("%s: the registry holds %q (%v) under id %d, want the source's schema as written", name, w.Text, err, id)
				}
			}
			back, err := c.Unmarshal(b, c.NewNative())
			if err != nil {
				t.Fatal(err)
			}
			want, _ := c.Record(native)
			got, _ := c.Record(back)
			if !cmp.Equal(want, got) {
				t.Fatalf("%s line %d: round trip differs:\n%s", name, s.Lines[i], cmp.Diff(want, got))
			}
		}
		for _, other := range codec.RegistryNames() {
			if other == name {
				continue
			}
			if _, err := codec.NewWith(other, typ, codec.Options{Registry: reg, Topic: "x"}); err == nil || !strings.Contains(err.Error(), "must be") {
				t.Errorf("%s with a %s source: %v, want a refusal", other, format, err)
			}
		}
	}
	if _, err := codec.New("avro/registry", payload.Types()[0]); err == nil || !strings.Contains(err.Error(), "schemaRegistry") {
		t.Errorf("a registry variant without a registry: %v", err)
	}
}

func client(t *testing.T, url string) *registry.Client {
	t.Helper()
	c, err := registry.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustPool(t *testing.T, s payload.Schema) []any {
	t.Helper()
	pool, err := s.Pool(2, 256, 1)
	if err != nil {
		t.Fatal(err)
	}
	return pool
}

// checkRegistered: the registry holds the codec's schema under id, of its type.
func checkRegistered(t *testing.T, c *registry.Client, id int, format string) {
	t.Helper()
	w, err := c.Writer("", id)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"avro": registry.Avro, "protobuf": registry.Protobuf, "json": registry.JSON}[format]; w.Type != want || w.Text == "" {
		t.Fatalf("id %d: registry holds a %s schema %q, want %s", id, w.Type, w.Text, want)
	}
}

// validJSON: a JSON value fits the JSON Schema the codec registers.
func validJSON(t *testing.T, typ payload.Type, value []byte) {
	t.Helper()
	text, err := codec.JSONSchema(reflect.TypeOf(typ.New()).Elem())
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := comp.Compile("schema.json")
	if err != nil {
		t.Fatalf("the registered JSON Schema does not compile: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Fatalf("%s value does not fit its JSON Schema: %v", typ.Name, err)
	}
}
