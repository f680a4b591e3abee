package main

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/payload"
)

// javaPackage holds the payload types as plain Java objects: what the JVM-only
// serializers (Java serialization, Kryo, Fory) write, as the studies' POJOs were.
// Classes with public fields, not records: a record's constructor takes at most 255
// components, and the large business record has more columns.
const javaPackage = "serdebench.payload.pojo"

var javaTypesOf = map[kind][2]string{ // the required and the optional (nullable) form
	kindInt64: {"long", "Long"}, kindInt32: {"int", "Integer"}, kindFloat64: {"double", "Double"},
	kindBool: {"boolean", "Boolean"}, kindString: {"String", "String"}, kindTime: {"java.time.Instant", "java.time.Instant"},
}

// javaArrays are a list's Java form: a primitive array where Go has one of scalars.
var javaArrays = map[kind]string{kindInt64: "long[]", kindInt32: "int[]", kindFloat64: "double[]", kindBool: "boolean[]",
	kindString: "java.util.List<String>", kindTime: "java.util.List<java.time.Instant>"}

// javaClasses writes one Java class per payload type, its public fields the struct's
// fields in order, named in lowerCamelCase and bound to the JSON names cmd/pool
// writes (Jackson's @JsonProperty). Times are java.time.Instant.
func javaClasses(msgs []message) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, m := range msgs {
		var b bytes.Buffer
		fmt.Fprintf(&b, "// %s\n\npackage %s;\n\nimport com.fasterxml.jackson.annotation.JsonProperty;\n\n", header, javaPackage)
		fmt.Fprintf(&b, "/** The payload type %s (%s) as a plain Java object. */\npublic final class %s implements java.io.Serializable {\n", m.Name, m.GoType, m.Name)
		b.WriteString("  private static final long serialVersionUID = 1L;\n\n")
		for _, f := range m.Fields {
			var t string
			switch f.Kind {
			case kindList:
				t = javaArrays[f.Elem]
			case kindMap:
				if v := javaTypesOf[f.Elem][1]; v != "" {
					t = "java.util.Map<String, " + v + ">"
				}
			case kindMessage:
				t = f.Message
			default:
				opt := 0
				if f.Optional {
					opt = 1
				}
				t = javaTypesOf[f.Kind][opt]
			}
			if t == "" {
				return nil, fmt.Errorf("%s.%s: no Java type for %s", m.Name, f.Name, f.Kind)
			}
			fmt.Fprintf(&b, "  @JsonProperty(%q) public %s %s;\n", f.Name, t, lowerCamel(f.Name))
		}
		b.WriteString("}\n")
		out[strings.ReplaceAll(javaPackage, ".", "/")+"/"+m.Name+".java"] = b.Bytes()
	}
	return out, nil
}

// avroSchemas writes the Avro schema the Go avro codecs use of every payload type
// that is not nested in another (whose schema defines it already), for the JVM
// worker's generated (specific) Avro classes.
func avroSchemas(msgs []message) (map[string][]byte, error) {
	nested := map[string]bool{}
	for _, m := range msgs {
		for _, f := range m.Fields {
			if f.Kind == kindMessage {
				nested[f.Message] = true
			}
		}
	}
	out := map[string][]byte{}
	for _, t := range payload.Types() {
		if nested[t.Name] {
			continue
		}
		s, err := codec.AvroSchema(reflect.TypeOf(t.New()).Elem())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		out[t.Name+".avsc"] = []byte(s + "\n")
	}
	return out, nil
}
