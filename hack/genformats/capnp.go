package main

import (
	"bytes"
	"fmt"
)

var capnpTypesOf = map[kind]string{kindInt64: "Int64", kindInt32: "Int32", kindFloat64: "Float64", kindBool: "Bool", kindString: "Text", kindTime: "Int64"}

// capnpFileID is the schema file's 64-bit ID (capnp requires one; any value with the
// top bit set, fixed so regeneration is stable).
const capnpFileID = "0xd6b0a1c3e5f70819"

// lowerCamel is a Cap'n Proto field name (no underscores allowed) and a Java class's
// field: record_id → recordId.
func lowerCamel(snake string) string {
	c := camel(snake)
	return string(bytes.ToLower([]byte(c[:1]))) + c[1:]
}

func capnpSchema(msgs []message) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n# Times are Int64 microseconds since the Unix epoch; maps are lists of entry\n", header)
	b.WriteString("# structs; an optional field is a union of null and its value.\n\n")
	fmt.Fprintf(&b, "@%s;\n\nusing Go = import \"/go.capnp\";\n$Go.package(\"capnpgen\");\n$Go.import(\"github.com/serdebench/serdebench/workers/payload/capnpgen\");\n\n", capnpFileID)
	for _, m := range msgs {
		for _, f := range m.Fields {
			if f.Kind == kindMap {
				fmt.Fprintf(&b, "struct %s {\n  key @0 :Text;\n  value @1 :%s;\n}\n\n", entryTable(m, f), capnpTypesOf[f.Elem])
			}
		}
		fmt.Fprintf(&b, "struct %s {\n", m.Name)
		n := 0
		for _, f := range m.Fields {
			t := schemaType(f, capnpTypesOf, "List(%s)", "List("+entryTable(m, f)+")")
			if f.Optional && f.Kind != kindMessage {
				fmt.Fprintf(&b, "  %s :union {\n    null @%d :Void;\n    value @%d :%s;\n  }\n", lowerCamel(f.Name), n, n+1, t)
				n += 2
				continue
			}
			fmt.Fprintf(&b, "  %s @%d :%s;\n", lowerCamel(f.Name), n, t)
			n++
		}
		b.WriteString("}\n\n")
	}
	return b.Bytes(), nil
}

// capnpConvert writes, per payload type, a builder that fills a new message from the
// payload struct and a reader that decodes every field back into it: the codec's
// timed Marshal and Unmarshal, as for FlatBuffers.
func capnpConvert(msgs []message) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage capnpgen\n\nimport (\n\t\"time\"\n\n\tcapnp \"capnproto.org/go/capnp/v3\"\n\n\t\"github.com/serdebench/serdebench/workers/payload\"\n)\n\n", header)
	b.WriteString(`// Funcs builds and reads one payload type.
type Funcs struct {
	// Build sets the root of the message seg belongs to from rec, a pointer to the
	// payload struct.
	Build func(seg *capnp.Segment, rec any) error
	// Read decodes the message's root into rec, a zeroed pointer to the struct.
	Read func(msg *capnp.Message, rec any) error
}

// ByName maps each payload type's name to its Funcs.
var ByName = map[string]Funcs{
`)
	for _, m := range msgs {
		fmt.Fprintf(&b, "\t%q: {\n\t\tBuild: func(seg *capnp.Segment, rec any) error {\n\t\t\ts, err := NewRoot%s(seg)\n\t\t\tif err != nil {\n\t\t\t\treturn err\n\t\t\t}\n\t\t\treturn build%s(s, rec.(*%s))\n\t\t},\n", m.Name, m.Name, m.Name, m.GoType)
		fmt.Fprintf(&b, "\t\tRead: func(msg *capnp.Message, rec any) error {\n\t\t\ts, err := ReadRoot%s(msg)\n\t\t\tif err != nil {\n\t\t\t\treturn err\n\t\t\t}\n\t\t\treturn read%s(s, rec.(*%s))\n\t\t},\n\t},\n", m.Name, m.Name, m.GoType)
	}
	b.WriteString("}\n\nfunc micros(t time.Time) int64 { return t.UnixMicro() }\n\nfunc fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }\n\n")
	for _, m := range msgs {
		capnpBuild(&b, m)
		capnpRead(&b, m)
	}
	return b.Bytes(), nil
}

const errCheck = "\t\tif err != nil {\n\t\t\treturn err\n\t\t}\n"

func capnpBuild(b *bytes.Buffer, m message) {
	fmt.Fprintf(b, "func build%s(s %s, r *%s) error {\n", m.Name, m.Name, m.GoType)
	for _, f := range m.Fields {
		n, g := camel(f.Name), "r."+f.GoName
		switch {
		case f.Kind == kindMessage:
			fmt.Fprintf(b, "\tif %s != nil {\n\t\tn, err := s.New%s()\n%s\t\tif err := build%s(n, %s); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n", g, n, errCheck, f.Message, g)
		case f.Kind == kindList:
			fmt.Fprintf(b, "\tif %s != nil {\n\t\tl, err := s.New%s(int32(len(%s)))\n%s\t\tfor i, v := range %s {\n\t\t\tl.Set(i, v)\n\t\t}\n\t}\n", g, n, g, errCheck, g)
		case f.Kind == kindMap:
			fmt.Fprintf(b, "\tif %s != nil {\n\t\tl, err := s.New%s(int32(len(%s)))\n%s\t\ti := 0\n", g, n, g, errCheck)
			fmt.Fprintf(b, "\t\tfor k, v := range %s {\n\t\t\te := l.At(i)\n\t\t\tif err := e.SetKey(k); err != nil {\n\t\t\t\treturn err\n\t\t\t}\n\t\t\te.SetValue(v)\n\t\t\ti++\n\t\t}\n\t}\n", g)
		case f.Optional:
			val := "*" + g
			if f.Kind == kindTime {
				val = "micros(*" + g + ")"
			}
			if f.Kind == kindString {
				fmt.Fprintf(b, "\tif %s != nil {\n\t\tif err := s.%s().SetValue(%s); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n", g, n, val)
			} else {
				fmt.Fprintf(b, "\tif %s != nil {\n\t\ts.%s().SetValue(%s)\n\t}\n", g, n, val)
			}
		case f.Kind == kindString:
			fmt.Fprintf(b, "\tif %s != \"\" {\n\t\tif err := s.Set%s(%s); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n", g, n, g)
		case f.Kind == kindTime:
			fmt.Fprintf(b, "\ts.Set%s(micros(%s))\n", n, g)
		default:
			fmt.Fprintf(b, "\ts.Set%s(%s)\n", n, g)
		}
	}
	b.WriteString("\treturn nil\n}\n\n")
}

func capnpRead(b *bytes.Buffer, m message) {
	fmt.Fprintf(b, "func read%s(s %s, r *%s) error {\n", m.Name, m.Name, m.GoType)
	for _, f := range m.Fields {
		n, g := camel(f.Name), "r."+f.GoName
		switch {
		case f.Kind == kindMessage:
			fmt.Fprintf(b, "\tif s.Has%s() {\n\t\tn, err := s.%s()\n%s\t\t%s = new(%s)\n\t\tif err := read%s(n, %s); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n", n, n, errCheck, g, f.GoStruct, f.Message, g)
		case f.Kind == kindList:
			fmt.Fprintf(b, "\tif s.Has%s() {\n\t\tl, err := s.%s()\n%s\t\t%s = make([]%s, l.Len())\n\t\tfor i := range %s {\n\t\t\t%s[i] = l.At(i)\n\t\t}\n\t}\n", n, n, errCheck, g, f.Elem, g, g)
		case f.Kind == kindMap:
			fmt.Fprintf(b, "\tif s.Has%s() {\n\t\tl, err := s.%s()\n%s\t\t%s = make(map[string]%s, l.Len())\n", n, n, errCheck, g, f.Elem)
			fmt.Fprintf(b, "\t\tfor i := range l.Len() {\n\t\t\te := l.At(i)\n\t\t\tk, err := e.Key()\n\t\t\tif err != nil {\n\t\t\t\treturn err\n\t\t\t}\n\t\t\t%s[k] = e.Value()\n\t\t}\n\t}\n", g)
		case f.Optional:
			which := fmt.Sprintf("%s_%s_Which_value", m.Name, lowerCamel(f.Name))
			fmt.Fprintf(b, "\tif u := s.%s(); u.Which() == %s {\n", n, which)
			switch f.Kind {
			case kindString:
				fmt.Fprintf(b, "\t\tv, err := u.Value()\n%s\t\t%s = &v\n", errCheck, g)
			case kindTime:
				fmt.Fprintf(b, "\t\tv := fromMicros(u.Value())\n\t\t%s = &v\n", g)
			default:
				fmt.Fprintf(b, "\t\tv := u.Value()\n\t\t%s = &v\n", g)
			}
			b.WriteString("\t}\n")
		case f.Kind == kindString:
			fmt.Fprintf(b, "\t{\n\t\tv, err := s.%s()\n%s\t\t%s = v\n\t}\n", n, errCheck, g)
		case f.Kind == kindTime:
			fmt.Fprintf(b, "\t%s = fromMicros(s.%s())\n", g, n)
		default:
			fmt.Fprintf(b, "\t%s = s.%s()\n", g, n)
		}
	}
	b.WriteString("\treturn nil\n}\n\n")
}
