package codec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/linkedin/goavro/v2"

	"github.com/serdebench/serdebench/workers/payload"
)

// avroCodec uses linkedin/goavro with a schema derived from the payload struct, so the
// Avro record has exactly the struct's fields: pointers become ["null", T] unions,
// time.Time a timestamp-micros long, maps and slices Avro maps and arrays.
type avroCodec struct {
	t      payload.Type
	codec  *goavro.Codec
	goType reflect.Type
}

const avroNamespace = "io.serdebench.payload"

func init() {
	// goavro's decoders check block counts and byte lengths against these package
	// limits (by default 2^31 entries, which a corrupt count turns into gigabytes).
	goavro.MaxBlockCount = maxElements
	goavro.MaxBlockSize = maxValueBytes
}

func newAvro(t payload.Type) (*avroCodec, error) {
	goType := reflect.TypeOf(t.New()).Elem()
	schema, err := AvroSchema(goType)
	if err != nil {
		return nil, err
	}
	c, err := goavro.NewCodec(schema)
	if err != nil {
		return nil, fmt.Errorf("avro: compile schema for %s: %w", goType.Name(), err)
	}
	return &avroCodec{t: t, codec: c, goType: goType}, nil
}

// AvroSchema returns the Avro schema (JSON) of a payload struct type.
func AvroSchema(t reflect.Type) (string, error) {
	s, err := avroType(t, map[reflect.Type]bool{})
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(s)
	return string(b), err
}

var timeType = reflect.TypeOf(time.Time{})

func avroType(t reflect.Type, defined map[reflect.Type]bool) (any, error) {
	switch {
	case t == timeType:
		return map[string]any{"type": "long", "logicalType": "timestamp-micros"}, nil
	case t.Kind() == reflect.Pointer:
		inner, err := avroType(t.Elem(), defined)
		if err != nil {
			return nil, err
		}
		return []any{"null", inner}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean", nil
	case reflect.Int32:
		return "int", nil
	case reflect.Int64:
		return "long", nil
	case reflect.Float64:
		return "double", nil
	case reflect.String:
		return "string", nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes", nil
		}
		items, err := avroType(t.Elem(), defined)
		return map[string]any{"type": "array", "items": items}, err
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("avro: map key of %s must be string", t)
		}
		values, err := avroType(t.Elem(), defined)
		return map[string]any{"type": "map", "values": values}, err
	case reflect.Struct:
		if defined[t] {
			return avroNamespace + "." + t.Name(), nil
		}
		defined[t] = true
		var fields []any
		for i := range t.NumField() {
			ft, err := avroType(t.Field(i).Type, defined)
			if err != nil {
				return nil, err
			}
			fields = append(fields, map[string]any{"name": fieldName(t.Field(i)), "type": ft})
		}
		return map[string]any{"type": "record", "name": t.Name(), "namespace": avroNamespace, "fields": fields}, nil
	}
	return nil, fmt.Errorf("avro: unsupported Go type %s", t)
}

// fieldName is a struct field's wire name: its json tag.
func fieldName(f reflect.StructField) string {
	return strings.Split(f.Tag.Get("json"), ",")[0]
}

func (c *avroCodec) Name() string   { return "avro" }
func (c *avroCodec) NewNative() any { return nil }

func (c *avroCodec) Native(rec any) (any, error) {
	return toAvro(reflect.ValueOf(rec).Elem()), nil
}

func (c *avroCodec) Record(native any) (any, error) {
	rec := reflect.New(c.goType)
	if err := fromAvro(native, rec.Elem()); err != nil {
		return nil, fmt.Errorf("avro: to record: %w", err)
	}
	return rec.Interface(), nil
}

func (c *avroCodec) Marshal(dst []byte, native any) ([]byte, error) {
	b, err := c.codec.BinaryFromNative(dst[:0], native)
	if err != nil {
		return nil, fmt.Errorf("avro marshal: %w", err)
	}
	return b, nil
}

func (c *avroCodec) Unmarshal(data []byte, _ any) (any, error) {
	native, _, err := c.codec.NativeFromBinary(data)
	if err != nil {
		return nil, fmt.Errorf("avro unmarshal: %w", err)
	}
	return native, nil
}

// toAvro converts a Go value to goavro's native form.
func toAvro(v reflect.Value) any {
	t := v.Type()
	switch {
	case t == timeType:
		return v.Interface()
	case t.Kind() == reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return goavro.Union(avroUnionName(t.Elem()), toAvro(v.Elem()))
	}
	switch t.Kind() {
	case reflect.Struct:
		m := make(map[string]any, t.NumField())
		for i := range t.NumField() {
			m[fieldName(t.Field(i))] = toAvro(v.Field(i))
		}
		return m
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return v.Bytes()
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = toAvro(v.Index(i))
		}
		return out
	case reflect.Map:
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			out[it.Key().String()] = toAvro(it.Value())
		}
		return out
	}
	return v.Interface()
}

func avroUnionName(t reflect.Type) string {
	switch {
	case t == timeType:
		return "long.timestamp-micros"
	case t.Kind() == reflect.Struct:
		return avroNamespace + "." + t.Name()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int32:
		return "int"
	case reflect.Int64:
		return "long"
	case reflect.Float64:
		return "double"
	case reflect.String:
		return "string"
	}
	return t.Kind().String()
}

// fromAvro sets dst from goavro's native form.
func fromAvro(native any, dst reflect.Value) error {
	t := dst.Type()
	switch {
	case t == timeType:
		tm, ok := native.(time.Time)
		if !ok {
			return fmt.Errorf("want time.Time, got %T", native)
		}
		dst.Set(reflect.ValueOf(tm))
		return nil
	case t.Kind() == reflect.Pointer:
		if native == nil {
			return nil
		}
		u, ok := native.(map[string]any)
		if !ok || len(u) != 1 {
			return fmt.Errorf("want union for %s, got %T", t, native)
		}
		p := reflect.New(t.Elem())
		for _, inner := range u {
			if err := fromAvro(inner, p.Elem()); err != nil {
				return err
			}
		}
		dst.Set(p)
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := native.(map[string]any)
		if !ok {
			return fmt.Errorf("want record for %s, got %T", t, native)
		}
		for i := range t.NumField() {
			if err := fromAvro(m[fieldName(t.Field(i))], dst.Field(i)); err != nil {
				return fmt.Errorf("%s: %w", fieldName(t.Field(i)), err)
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			dst.SetBytes(native.([]byte))
			return nil
		}
		items, _ := native.([]any)
		s := reflect.MakeSlice(t, len(items), len(items))
		for i, it := range items {
			if err := fromAvro(it, s.Index(i)); err != nil {
				return err
			}
		}
		dst.Set(s)
	case reflect.Map:
		m, _ := native.(map[string]any)
		out := reflect.MakeMapWithSize(t, len(m))
		for k, val := range m {
			ev := reflect.New(t.Elem()).Elem()
			if err := fromAvro(val, ev); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k), ev)
		}
		dst.Set(out)
	default:
		rv := reflect.ValueOf(native)
		if !rv.IsValid() || !rv.Type().ConvertibleTo(t) {
			return fmt.Errorf("want %s, got %T", t, native)
		}
		dst.Set(rv.Convert(t))
	}
	return nil
}
