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
	if err := convertThrift(reflect.ValueOf(rec).Elem(), reflect.ValueOf(m).Elem(), true); err != nil {
		return nil, fmt.Errorf("%s: from record: %w", c.name, err)
	}
	return m, nil
}

func (c *thriftCodec) Record(native any) (any, error) {
	rec := reflect.New(c.goType)
	if err := convertThrift(rec.Elem(), reflect.ValueOf(native).Elem(), false); err != nil {
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

// convertThrift copies between a payload struct and its generated Thrift struct,
// matching fields by name, in the direction toThrift says. Times are microseconds
// on the Thrift side; pointers are optional fields there.
func convertThrift(rec, msg reflect.Value, toThrift bool) error {
	fields := thriftFields(msg.Type())
	for i := range rec.NumField() {
		name := fieldName(rec.Type().Field(i))
		j, ok := fields[name]
		if !ok {
			return fmt.Errorf("thrift struct %s has no field %s", msg.Type().Name(), name)
		}
		src, dst := rec.Field(i), msg.Field(j)
		if !toThrift {
			src, dst = dst, src
		}
		if src.Kind() == reflect.Pointer {
			if src.IsNil() {
				continue
			}
			src = src.Elem()
		}
		if dst.Kind() == reflect.Pointer {
			dst.Set(reflect.New(dst.Type().Elem()))
			dst = dst.Elem()
		}
		var err error
		switch {
		case src.Type() == timeType:
			dst.SetInt(src.Interface().(time.Time).UnixMicro())
		case dst.Type() == timeType:
			dst.Set(reflect.ValueOf(time.UnixMicro(src.Int()).UTC()))
		case src.Kind() == reflect.Struct && toThrift:
			err = convertThrift(src, dst, true)
		case src.Kind() == reflect.Struct:
			err = convertThrift(dst, src, false)
		default:
			dst.Set(src)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
