package codec

import (
	"fmt"
	"reflect"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/registry"
	"github.com/serdebench/serdebench/workers/source"
)

// RegistrySuffix names a registry variant: <format>/registry encodes the record
// as <format> does, framed in the Confluent wire format with its schema's id from
// a schema registry (workers/registry), as Confluent's KafkaAvroSerializer,
// KafkaProtobufSerializer and KafkaJsonSchemaSerializer write it.
const RegistrySuffix = trial.RegistrySuffix

// RegistryNames lists the registry variants.
func RegistryNames() []string {
	return []string{string(trial.CodecAvroRegistry), string(trial.CodecProtobufRegistry), string(trial.CodecJSONRegistry)}
}

// Options are what a codec may need beside the record type.
type Options struct {
	// Registry is the worker's schema registry client (registry variants only).
	Registry *registry.Client
	// Topic names the subject a registry variant registers under: <topic>-value,
	// the Confluent serializers' default TopicNameStrategy.
	Topic string
}

// NewWith returns the named codec for the record type t; a registry variant
// needs o's Registry and Topic.
func NewWith(name string, t payload.Type, o Options) (Codec, error) {
	format, ok := strings.CutSuffix(name, RegistrySuffix)
	if !ok {
		return New(name, t)
	}
	if o.Registry == nil || o.Topic == "" {
		return nil, fmt.Errorf("codec %s needs a schema registry (kafka.schemaRegistry.url) and a topic", name)
	}
	inner, schema, path, err := registered(format, t)
	if err != nil {
		return nil, fmt.Errorf("codec %s: %w", name, err)
	}
	f := &Framed{name: name, inner: inner, reg: o.Registry, subject: o.Topic + "-value", schema: schema,
		protobuf: schema.Type == registry.Protobuf, checked: map[int]bool{}}
	if f.protobuf {
		f.path, f.indexes = path, registry.MessageIndexes(path)
	}
	return f, nil
}

// registered returns the codec that encodes format's records, the schema it
// registers and, for protobuf, the message's index path in its file.
func registered(format string, t payload.Type) (Codec, registry.Schema, []int, error) {
	if s := t.Source; s != nil {
		want := map[string]string{"avro": source.Avro, "protobuf": source.Protobuf, "json": source.JSONSchema}[format]
		if s.Format != want {
			return nil, registry.Schema{}, nil, fmt.Errorf("registers the payload source's schema, which must be %s, not %s", want, s.Format)
		}
		inner, err := newDynamic(format, s)
		if err != nil {
			return nil, registry.Schema{}, nil, err
		}
		switch format {
		case "avro":
			return inner, registry.Schema{Type: registry.Avro, Text: s.Schema}, nil, nil
		case "protobuf":
			return inner, registry.Schema{Type: registry.Protobuf, Text: s.Schema}, indexPath(s.Message), nil
		default:
			return inner, registry.Schema{Type: registry.JSON, Text: s.Schema}, nil, nil
		}
	}
	goType := reflect.TypeOf(t.New()).Elem()
	switch format {
	case "avro":
		inner, err := newAvro(t)
		if err != nil {
			return nil, registry.Schema{}, nil, err
		}
		text, err := AvroSchema(goType)
		return inner, registry.Schema{Type: registry.Avro, Text: text}, nil, err
	case "protobuf":
		d := t.Proto().ProtoReflect().Descriptor()
		text, err := payload.ProtoFile(d.ParentFile().Path())
		return newProtobuf(t), registry.Schema{Type: registry.Protobuf, Text: text}, indexPath(d), err
	case "json":
		text, err := JSONSchema(goType)
		return newJSON(t), registry.Schema{Type: registry.JSON, Text: text}, nil, err
	}
	return nil, registry.Schema{}, nil, fmt.Errorf("no registry variant of %q (known: %v)", format, RegistryNames())
}

// indexPath is a message's place in its .proto file: its index among the file's
// messages, then among its parent's nested messages, outermost first.
func indexPath(d protoreflect.MessageDescriptor) []int {
	var path []int
	for {
		path = append([]int{d.Index()}, path...)
		parent, ok := d.Parent().(protoreflect.MessageDescriptor)
		if !ok {
			return path
		}
		d = parent
	}
}

// Framed is a registry variant. Its values are the wire format's header, then
// the inner codec's encoding. Like Confluent's serializers it asks its client
// for the schema's id on every value (a cache hit after the first), and like
// their deserializers it looks every value's writer schema up by id (likewise);
// the first value of each id is also checked to be this codec's schema.
// Workers time Frame and Unframe apart from the inner codec's work.
type Framed struct {
	name    string
	inner   Codec
	reg     *registry.Client
	subject string
	schema  registry.Schema
	// path is a protobuf message's index path, indexes its encoding.
	path     []int
	indexes  []byte
	protobuf bool
	// checked holds the writer ids known to be this codec's schema.
	checked map[int]bool
	body    []byte
}

// Name is the variant's name (avro/registry).
func (f *Framed) Name() string { return f.name }

// Inner is the codec that encodes the record itself.
func (f *Framed) Inner() Codec { return f.inner }

// Subject is the registry subject the schema is registered under.
func (f *Framed) Subject() string { return f.subject }

// Native converts a logical record for Marshal, as the inner codec does.
func (f *Framed) Native(rec any) (any, error) { return f.inner.Native(rec) }

// Record converts a native object back into a logical record.
func (f *Framed) Record(native any) (any, error) { return f.inner.Record(native) }

// NewNative returns an empty native object for Unmarshal.
func (f *Framed) NewNative() any { return f.inner.NewNative() }

// Frame appends the header for the codec's schema to dst, its id from the
// registry client (registered the first time).
func (f *Framed) Frame(dst []byte) ([]byte, error) {
	id, err := f.reg.ID(f.subject, f.schema)
	if err != nil {
		return nil, err
	}
	return registry.AppendHeader(dst, id, f.indexes), nil
}

// Unframe checks data's header, looking its writer schema up by id, and returns
// the encoded record behind it.
func (f *Framed) Unframe(data []byte) ([]byte, error) {
	id, indexes, rest, err := registry.ParseHeader(data, f.protobuf)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.name, err)
	}
	w, err := f.reg.Writer(f.subject, id)
	if err != nil {
		return nil, err
	}
	if !f.checked[id] {
		// The registry may store a schema in its own canonical form: the id this
		// codec's schema has under the subject is what identifies it.
		own, err := f.reg.Registered(f.subject, f.schema)
		if err != nil {
			return nil, err
		}
		if id != own || w.Type != f.schema.Type {
			return nil, fmt.Errorf("%s: value written with schema id %d (%s), not this codec's (id %d under %s)", f.name, id, w.Type, own, f.subject)
		}
		f.checked[id] = true
	}
	if f.protobuf && !registry.SameIndexes(indexes, f.path) {
		return nil, fmt.Errorf("%s: value names message indexes %v (encoded), this codec's message is %v", f.name, indexes, f.path)
	}
	return rest, nil
}

// Marshal frames native's encoding; the result may alias dst.
func (f *Framed) Marshal(dst []byte, native any) ([]byte, error) {
	out, err := f.Frame(dst[:0])
	if err != nil {
		return nil, err
	}
	if f.body, err = f.inner.Marshal(f.body, native); err != nil {
		return nil, err
	}
	return append(out, f.body...), nil
}

// Unmarshal decodes a framed value.
func (f *Framed) Unmarshal(data []byte, into any) (any, error) {
	rest, err := f.Unframe(data)
	if err != nil {
		return nil, err
	}
	return f.inner.Unmarshal(rest, into)
}
