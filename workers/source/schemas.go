package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/linkedin/goavro/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// avroSchema compiles an .avsc with goavro's standard-JSON codec, which reads plain
// JSON (a union's value without its type wrapper) as Avro data.
func avroSchema(schema []byte) (*Set, func([]byte, any) error, error) {
	c, err := goavro.NewCodecForStandardJSONFull(string(schema))
	if err != nil {
		return nil, nil, err
	}
	var named struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(schema, &named) // a primitive top-level schema has no name
	if named.Name == "" {
		named.Name = "record"
	}
	validate := func(line []byte, _ any) error {
		if _, _, err := c.NativeFromTextual(line); err != nil {
			return fmt.Errorf("does not fit the Avro schema: %w", err)
		}
		return nil
	}
	return &Set{Name: named.Name, Avro: c}, validate, nil
}

// protoFile is the name the .proto is compiled under; imports of the well-known
// types (google/protobuf/*.proto) resolve to the copies compiled into the binary.
const protoFile = "schema.proto"

// protoSchema compiles a .proto with protocompile and picks the record's message:
// the one named, else the file's only top-level message.
func protoSchema(schema []byte, message string) (*Set, func([]byte, any) error, error) {
	comp := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{protoFile: string(schema)}),
	})}
	files, err := comp.Compile(context.Background(), protoFile)
	if err != nil {
		return nil, nil, err
	}
	msgs := files[0].Messages()
	var desc protoreflect.MessageDescriptor
	switch {
	case message != "":
		for i := range msgs.Len() {
			if m := msgs.Get(i); string(m.Name()) == message || string(m.FullName()) == message {
				desc = m
			}
		}
		if desc == nil {
			return nil, nil, fmt.Errorf("no message %q in the .proto", message)
		}
	case msgs.Len() == 1:
		desc = msgs.Get(0)
	case msgs.Len() == 0:
		return nil, nil, errors.New("the .proto defines no message")
	default:
		return nil, nil, fmt.Errorf("the .proto defines %d messages: set payload.source.message", msgs.Len())
	}
	validate := func(line []byte, _ any) error {
		if err := protojson.Unmarshal(line, dynamicpb.NewMessage(desc)); err != nil {
			return fmt.Errorf("does not fit message %s: %w", desc.FullName(), err)
		}
		return nil
	}
	return &Set{Name: string(desc.Name()), Message: desc}, validate, nil
}

// jsonSchema compiles a JSON Schema (any draft santhosh-tekuri/jsonschema knows,
// 2020-12 by default) with remote references refused.
func jsonSchema(schema []byte) (*Set, func([]byte, any) error, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource(jsonSchemaURL, doc); err != nil {
		return nil, nil, err
	}
	sch, err := c.Compile(jsonSchemaURL)
	if err != nil {
		return nil, nil, err
	}
	name := "record"
	if m, ok := doc.(map[string]any); ok {
		if t, ok := m["title"].(string); ok && t != "" {
			name = t
		}
	}
	validate := func(line []byte, _ any) error {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
		if err != nil {
			return err
		}
		if err := sch.Validate(inst); err != nil {
			// One line for a status condition: the causes, "; "-separated.
			msg := strings.ReplaceAll(err.Error(), "\n", "; ")
			return fmt.Errorf("does not fit the JSON Schema: %s", strings.ReplaceAll(msg, "  ", ""))
		}
		return nil
	}
	return &Set{Name: name}, validate, nil
}

// jsonSchemaURL names the user's schema: not a file, so nothing resolves against
// the worker's directory.
const jsonSchemaURL = "urn:serdebench:payload-schema"

// noLoader refuses to fetch referenced schemas: a source is self-contained.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("reference to %s: a payload source's JSON Schema must be self-contained", url)
}
