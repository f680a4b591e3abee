package codec

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/payload/thriftgen"
)

// thriftCodec uses apache/thrift with the structs generated from
// workers/payload/thriftgen/payload.thrift, in the binary or the compact protocol.
// Thrift field names equal the payload struct's json names; times are i64
// microseconds; pointers are optional fields.
type thriftCodec struct {
	name   string
	t      payload.Type
	newT   func() thrift.TStruct
	goType reflect.Type
	ser    *thrift.TSerializer
	de     *thrift.TDeserializer
	ctx    context.Context
}

func newThrift(name string, t payload.Type, compact bool) (*thriftCodec, error) {
	newT, ok := thriftgen.New[t.Name]
	if !ok {
		return nil, fmt.Errorf("%s: no Thrift struct for %s", name, t.Name)
	}
	ser, de := thrift.NewTSerializer(), thrift.NewTDeserializer()
	if compact {
		ser.Protocol = thrift.NewTCompactProtocolConf(ser.Transport, nil)
		de.Protocol = thrift.NewTCompactProtocolConf(de.Transport, nil)
	}
	return &thriftCodec{name: name, t: t, newT: newT, goType: reflect.TypeOf(t.New()).Elem(),
		ser: ser, de: de, ctx: context.Background()}, nil
}

func (c *thriftCodec) Name() string   { return c.name }
func (c *thriftCodec) NewNative() any { return c.newT() }

func (c *thriftCodec) Native(rec any) (any, error) {
	m := c.newT()
	if err := toThrift(reflect.ValueOf(rec).Elem(), reflect.ValueOf(m).Elem()); err != nil {
		return nil, fmt.Errorf("%s: from record: %w", c.name, err)
	}
	return m, nil
}

func (c *thriftCodec) Record(native any) (any, error) {
	rec := reflect.New(c.goType)
	if err := fromThrift(reflect.ValueOf(native).Elem(), rec.Elem()); err != nil {
		return nil, fmt.Errorf("%s: to record: %w", c.name, err)
	}
	return rec.Interface(), nil
}

func (c *thriftCodec) Marshal(_ []byte, native any) ([]byte, error) {
	// TSerializer copies out of its reused buffer; that copy is part of the library.
	b, err := c.ser.Write(c.ctx, native.(thrift.TStruct))
	if err != nil {
		return nil, fmt.Errorf("%s marshal: %w", c.name, err)
	}
	return b, nil
}

func (c *thriftCodec) Unmarshal(data []byte, into any) (any, error) {
	resetStruct(into) // generated Read sets only the fields present
	if err := c.de.Read(c.ctx, into.(thrift.TStruct), data); err != nil {
		return nil, fmt.Errorf("%s unmarshal: %w", c.name, err)
	}
	return into, nil
}

// thriftFields indexes a generated struct's fields by their Thrift name.
func thriftFields(t reflect.Type) map[string]int {
	m := map[string]int{}
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("thrift"); tag != "" {
			m[strings.Split(tag, ",")[0]] = i
		}
	}
	return m
}

func toThrift(src, dst reflect.Value) error {
	fields := thriftFields(dst.Type())
	for i := range src.NumField() {
		name := fieldName(src.Type().Field(i))
		j, ok := fields[name]
		if !ok {
			return fmt.Errorf("thrift struct %s has no field %s", dst.Type().Name(), name)
		}
		sv, dv := src.Field(i), dst.Field(j)
		if sv.Kind() == reflect.Pointer {
			if sv.IsNil() {
				continue
			}
			sv = sv.Elem()
		}
		if dv.Kind() == reflect.Pointer {
			dv.Set(reflect.New(dv.Type().Elem()))
			dv = dv.Elem()
		}
		switch {
		case sv.Type() == timeType:
			dv.SetInt(sv.Interface().(time.Time).UnixMicro())
		case sv.Kind() == reflect.Struct:
			if err := toThrift(sv, dv); err != nil {
				return err
			}
		default:
			dv.Set(sv)
		}
	}
	return nil
}

func fromThrift(src, dst reflect.Value) error {
	fields := thriftFields(src.Type())
	for i := range dst.NumField() {
		name := fieldName(dst.Type().Field(i))
		j, ok := fields[name]
		if !ok {
			return fmt.Errorf("thrift struct %s has no field %s", src.Type().Name(), name)
		}
		sv, dv := src.Field(j), dst.Field(i)
		if sv.Kind() == reflect.Pointer {
			if sv.IsNil() {
				continue
			}
			sv = sv.Elem()
		}
		if dv.Kind() == reflect.Pointer {
			dv.Set(reflect.New(dv.Type().Elem()))
			dv = dv.Elem()
		}
		switch {
		case dv.Type() == timeType:
			dv.Set(reflect.ValueOf(time.UnixMicro(sv.Int()).UTC()))
		case dv.Kind() == reflect.Struct:
			if err := fromThrift(sv, dv); err != nil {
				return err
			}
		default:
			dv.Set(sv)
		}
	}
	return nil
}
