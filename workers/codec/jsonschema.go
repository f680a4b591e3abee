package codec

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/invopop/jsonschema"
)

// JSONSchema returns the JSON Schema of a payload struct type as encoding/json
// writes it (invopop/jsonschema reads the json tags): every field required, none
// other allowed, and a pointer, map or slice also null, which a nil one encodes
// as.
func JSONSchema(t reflect.Type) (string, error) {
	s := (&jsonschema.Reflector{}).ReflectFromType(t)
	nullable(s.Definitions, t, map[reflect.Type]bool{})
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("json schema of %s: %w", t.Name(), err)
	}
	return string(b), nil
}

// nullable lets the nil-able fields of struct type t, and of the structs it
// holds, be null in their definitions.
func nullable(defs jsonschema.Definitions, t reflect.Type, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] || t == timeType {
		return
	}
	seen[t] = true
	def := defs[t.Name()]
	for i := range t.NumField() {
		f := t.Field(i)
		nullable(defs, f.Type, seen)
		if def == nil || def.Properties == nil {
			continue
		}
		name := fieldName(f)
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			if p, ok := def.Properties.Get(name); ok {
				def.Properties.Set(name, &jsonschema.Schema{AnyOf: []*jsonschema.Schema{p, {Type: "null"}}})
			}
		}
	}
}
