package codec

import (
	"fmt"
	"reflect"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/serdebench/serdebench/workers/payload"
)

// protobufCodec uses the generated messages in workers/payload/pb. Proto field names
// equal the struct's json names; nil pointers are unset optional fields.
type protobufCodec struct {
	t      payload.Type
	goType reflect.Type
	marsh  proto.MarshalOptions
	unm    proto.UnmarshalOptions
}

func newProtobuf(t payload.Type) *protobufCodec {
	return &protobufCodec{t: t, goType: reflect.TypeOf(t.New()).Elem()}
}

func (c *protobufCodec) Name() string   { return "protobuf" }
func (c *protobufCodec) NewNative() any { return c.t.Proto() }

func (c *protobufCodec) Native(rec any) (any, error) {
	m := c.t.Proto()
	if err := toProto(reflect.ValueOf(rec).Elem(), m.ProtoReflect()); err != nil {
		return nil, fmt.Errorf("protobuf: from record: %w", err)
	}
	return m, nil
}

func (c *protobufCodec) Record(native any) (any, error) {
	rec := reflect.New(c.goType)
	if err := fromProto(native.(proto.Message).ProtoReflect(), rec.Elem()); err != nil {
		return nil, fmt.Errorf("protobuf: to record: %w", err)
	}
	return rec.Interface(), nil
}

func (c *protobufCodec) Marshal(dst []byte, native any) ([]byte, error) {
	b, err := c.marsh.MarshalAppend(dst[:0], native.(proto.Message))
	if err != nil {
		return nil, fmt.Errorf("protobuf marshal: %w", err)
	}
	return b, nil
}

func (c *protobufCodec) Unmarshal(data []byte, into any) (any, error) {
	m := into.(proto.Message)
	proto.Reset(m)
	if err := c.unm.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("protobuf unmarshal: %w", err)
	}
	return m, nil
}

var timestampName = (&timestamppb.Timestamp{}).ProtoReflect().Descriptor().FullName()

func toProto(v reflect.Value, m protoreflect.Message) error {
	t := v.Type()
	fields := m.Descriptor().Fields()
	for i := range t.NumField() {
		name := fieldName(t.Field(i))
		fd := fields.ByName(protoreflect.Name(name))
		if fd == nil {
			return fmt.Errorf("message %s has no field %s", m.Descriptor().FullName(), name)
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		switch {
		case fd.IsList():
			l := m.Mutable(fd).List()
			for j := range fv.Len() {
				l.Append(protoreflect.ValueOf(fv.Index(j).Interface()))
			}
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			for it := fv.MapRange(); it.Next(); {
				mp.Set(protoreflect.ValueOf(it.Key().Interface()).MapKey(), protoreflect.ValueOf(it.Value().Interface()))
			}
		case fd.Message() != nil && fd.Message().FullName() == timestampName:
			m.Set(fd, protoreflect.ValueOfMessage(timestamppb.New(fv.Interface().(time.Time)).ProtoReflect()))
		case fd.Message() != nil:
			if err := toProto(fv, m.Mutable(fd).Message()); err != nil {
				return err
			}
		default:
			m.Set(fd, protoreflect.ValueOf(fv.Interface()))
		}
	}
	return nil
}

func fromProto(m protoreflect.Message, v reflect.Value) error {
	t := v.Type()
	fields := m.Descriptor().Fields()
	for i := range t.NumField() {
		fd := fields.ByName(protoreflect.Name(fieldName(t.Field(i))))
		if fd == nil {
			return fmt.Errorf("message %s has no field %s", m.Descriptor().FullName(), fieldName(t.Field(i)))
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer {
			if !m.Has(fd) {
				continue
			}
			fv.Set(reflect.New(fv.Type().Elem()))
			fv = fv.Elem()
		}
		pv := m.Get(fd)
		switch {
		case fd.IsList():
			l := pv.List()
			s := reflect.MakeSlice(fv.Type(), l.Len(), l.Len())
			for j := range l.Len() {
				s.Index(j).Set(reflect.ValueOf(l.Get(j).Interface()))
			}
			fv.Set(s)
		case fd.IsMap():
			mp := reflect.MakeMapWithSize(fv.Type(), pv.Map().Len())
			pv.Map().Range(func(k protoreflect.MapKey, val protoreflect.Value) bool {
				mp.SetMapIndex(reflect.ValueOf(k.Interface()), reflect.ValueOf(val.Interface()))
				return true
			})
			fv.Set(mp)
		case fd.Message() != nil && fd.Message().FullName() == timestampName:
			if m.Has(fd) {
				ts := pv.Message().Interface().(*timestamppb.Timestamp)
				fv.Set(reflect.ValueOf(ts.AsTime()))
			}
		case fd.Message() != nil:
			if err := fromProto(pv.Message(), fv); err != nil {
				return err
			}
		default:
			fv.Set(reflect.ValueOf(pv.Interface()).Convert(fv.Type()))
		}
	}
	return nil
}
