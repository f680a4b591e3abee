package codec_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hamba/avro/v2"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/payload"
)

// variants pairs each library variant with its format's default codec.
var variants = map[string]string{
	"avro/hamba":       "avro",
	"msgpack/msgp":     "msgpack",
	"protobuf/vtproto": "protobuf",
	"json/goccy":       "json",
}

// TestVariantsAreWireCompatible: each variant decodes what its default library wrote
// and the other way round, on every shape. Where the format pins the bytes, they must
// be the same:
//   - protobuf: identical bytes. Map entries come in Go's map order in both
//     libraries, so complex records are compared with one map entry.
//   - Avro: identical bytes, except arrays and maps: the spec lets a block be its
//     count or a negative count plus its byte size; hamba writes the second (in
//     blocks of 100), goavro the first. Complex records are compared with hamba set
//     to write goavro's form.
//   - MessagePack: the spec lets an integer take any family and width that holds
//     it. vmihailenco writes Go's int64 and int32 at full width (int 64 or 32),
//     msgp in the smallest signed form; vmihailenco's UseCompactInts would pick
//     unsigned forms for positive values, so neither matches byte for byte. They
//     must write the same values: the same map keys, the same
//     strings, floats, timestamps and nils, integers equal once widened.
func TestVariantsAreWireCompatible(t *testing.T) {
	for _, n := range codec.Names() {
		// A registry variant is its format's codec behind a header
		// (registry_test.go checks exactly that), not another library.
		if _, ok := variants[n]; strings.Contains(n, "/") && !strings.HasSuffix(n, codec.RegistrySuffix) && !ok {
			t.Fatalf("variant %s has no wire check", n)
		}
	}
	for variant, def := range variants {
		for _, schemaName := range payload.Structured() {
			schema, _ := payload.Lookup(schemaName)
			for _, size := range sizes {
				pool, err := schema.Pool(11, size, 20)
				if err != nil {
					t.Fatal(err)
				}
				v, _ := codec.New(variant, schema.TypeFor(size))
				d, _ := codec.New(def, schema.TypeFor(size))
				for i, rec := range pool {
					fromD, fromV := encode(t, d, rec), encode(t, v, rec)
					if got := decode(t, v, fromD); !cmp.Equal(rec, got) {
						t.Fatalf("%s/%d record %d: %s cannot read %s's bytes:\n%s", schemaName, size, i, variant, def, cmp.Diff(rec, got))
					}
					if got := decode(t, d, fromV); !cmp.Equal(rec, got) {
						t.Fatalf("%s/%d record %d: %s cannot read %s's bytes:\n%s", schemaName, size, i, def, variant, cmp.Diff(rec, got))
					}
					if def == "json" {
						continue // JSON has no single encoding
					}
					if c, ok := rec.(*payload.Complex); ok {
						for k := range c.Storage {
							c.Storage = map[string]int32{k: c.Storage[k]}
							break
						}
						fromD = encode(t, d, rec)
						fromV = encode(t, v, rec)
						if def == "avro" {
							// Avro writes an array or map block either as its count or as
							// a negative count and its byte size; hamba writes the second
							// (in blocks of 100), goavro the first. Both are the spec:
							// hamba set to goavro's form must write goavro's bytes.
							fromV = hambaPlainBlocks(t, schema.TypeFor(size), rec)
						}
					}
					if def == "msgpack" {
						if !cmp.Equal(generic(t, fromD), generic(t, fromV)) {
							t.Fatalf("%s/%d record %d: msgpack and msgp wrote different values:\n%x\n%x", schemaName, size, i, fromD, fromV)
						}
						continue
					}
					if !bytes.Equal(fromD, fromV) {
						t.Fatalf("%s/%d record %d: %s wrote %d B, %s %d B:\n%x\n%x", schemaName, size, i, def, len(fromD), variant, len(fromV), fromD, fromV)
					}
				}
			}
		}
	}
}

// TestVariantsReadEdgeValues: each variant and its default read each other's edge
// records (nil, empty and extreme values) as each format keeps them.
func TestVariantsReadEdgeValues(t *testing.T) {
	for variant, def := range variants {
		for label, rec := range edgeRecords() {
			schema, _ := payload.Lookup(label[0])
			v, _ := codec.New(variant, schema.TypeFor(1176))
			d, _ := codec.New(def, schema.TypeFor(1176))
			for _, pair := range [][2]codec.Codec{{d, v}, {v, d}} {
				got := decode(t, pair[1], encode(t, pair[0], rec))
				if diff := cmp.Diff(rec, got, equalOpts(variant)...); diff != "" {
					t.Errorf("%s %s: %s read %s's bytes differently (-want +got):\n%s", label[0], label[1], pair[1].Name(), pair[0].Name(), diff)
				}
			}
		}
	}
}

// hambaPlainBlocks encodes rec with hamba writing blocks as goavro does: one block
// per array or map, as its count.
func hambaPlainBlocks(t *testing.T, typ payload.Type, rec any) []byte {
	t.Helper()
	js, err := codec.AvroSchema(reflect.TypeOf(typ.New()).Elem())
	if err != nil {
		t.Fatal(err)
	}
	sch, err := avro.ParseWithCache(js, "", &avro.SchemaCache{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := avro.Config{TagKey: "json", DisableBlockSizeHeader: true, BlockLength: 1 << 30}.Freeze().Marshal(sch, rec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func encode(t *testing.T, c codec.Codec, rec any) []byte {
	t.Helper()
	native, err := c.Native(rec)
	if err != nil {
		t.Fatalf("%s native: %v", c.Name(), err)
	}
	b, err := c.Marshal(nil, native)
	if err != nil {
		t.Fatalf("%s marshal: %v", c.Name(), err)
	}
	return b
}

func decode(t *testing.T, c codec.Codec, data []byte) any {
	t.Helper()
	native, err := c.Unmarshal(data, c.NewNative())
	if err != nil {
		t.Fatalf("%s: %v", c.Name(), err)
	}
	rec, err := c.Record(native)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// generic decodes MessagePack into maps, slices and int64s, so two encodings of one
// value compare equal whatever integer tag each chose.
func generic(t *testing.T, b []byte) any {
	t.Helper()
	dec := msgpack.NewDecoder(bytes.NewReader(b))
	dec.UseLooseInterfaceDecoding(true)
	v, err := dec.DecodeInterface()
	if err != nil {
		t.Fatal(err)
	}
	return signed(v)
}

// signed turns the loose decoder's uint64s into int64s (all values here fit).
func signed(v any) any {
	switch x := v.(type) {
	case uint64:
		return int64(x)
	case map[string]any:
		for k, e := range x {
			x[k] = signed(e)
		}
	case []any:
		for i, e := range x {
			x[i] = signed(e)
		}
	}
	return v
}
