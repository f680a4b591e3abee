package main

import (
	"bytes"
	"fmt"
	"strings"
)

var fbTypesOf = map[kind]string{kindInt64: "long", kindInt32: "int", kindFloat64: "double", kindBool: "bool", kindString: "string", kindTime: "long"}

// fbGoTypes are the Go types flatc uses for a kind's scalars.
var fbGoTypes = map[kind]string{kindInt64: "Int64", kindInt32: "Int32", kindFloat64: "Float64", kindBool: "Bool", kindTime: "Int64"}

// entryTable is the table a map field's entries are stored in: FlatBuffers has no maps.
func entryTable(m message, f field) string { return m.Name + camel(f.Name) + "Entry" }

func flatbuffersSchema(msgs []message) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n// Times are longs in microseconds since the Unix epoch; maps are vectors of\n// entry tables. Optional scalars (= null) keep absent apart from zero.\n\nnamespace fbgen;\n\n", header)
	for _, m := range msgs {
		for _, f := range m.Fields {
			if f.Kind == kindMap {
				fmt.Fprintf(&b, "table %s { key:string; value:%s; }\n\n", entryTable(m, f), fbTypesOf[f.Elem])
			}
		}
		fmt.Fprintf(&b, "table %s {\n", m.Name)
		for _, f := range m.Fields {
			t := schemaType(f, fbTypesOf, "[%s]", "["+entryTable(m, f)+"]")
			if f.Optional && f.Kind != kindString && f.Kind != kindMessage {
				t += " = null"
			}
			fmt.Fprintf(&b, "  %s:%s;\n", f.Name, t)
		}
		b.WriteString("}\n\n")
	}
	return b.Bytes(), nil
}

// camel is flatc's Go name for a snake_case field: record_id → RecordId.
func camel(snake string) string {
	var b strings.Builder
	for _, p := range strings.Split(snake, "_") {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}

// flatbuffersConvert writes, per payload type, a builder from the payload struct and a
// reader into it. They are the codec's timed Marshal and Unmarshal: building the
// buffer field by field is how FlatBuffers is used, and reading every field is the
// decode the other codecs do.
func flatbuffersConvert(msgs []message) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage fbgen\n\nimport (\n\t\"fmt\"\n\t\"time\"\n\n\tflatbuffers \"github.com/google/flatbuffers/go\"\n\n\t\"github.com/serdebench/serdebench/workers/payload\"\n)\n\n", header)
	b.WriteString(`// Funcs builds and reads one payload type.
type Funcs struct {
	// Build writes rec (a pointer to the payload struct) and returns its table.
	Build func(b *flatbuffers.Builder, rec any) flatbuffers.UOffsetT
	// Read decodes the root table in buf into rec, a zeroed pointer to the struct.
	Read func(buf []byte, rec any)
}

// ByName maps each payload type's name to its Funcs.
var ByName = map[string]Funcs{
`)
	for _, m := range msgs {
		fmt.Fprintf(&b, "\t%q: {\n\t\tBuild: func(b *flatbuffers.Builder, rec any) flatbuffers.UOffsetT { return build%s(b, rec.(*%s)) },\n", m.Name, m.Name, m.GoType)
		fmt.Fprintf(&b, "\t\tRead: func(buf []byte, rec any) { read%s(GetRootAs%s(buf, 0), rec.(*%s)) },\n\t},\n", m.Name, m.Name, m.GoType)
	}
	b.WriteString("}\n\n// present reports whether field number i of t is set (vtable slots start at 4).\nfunc present(t flatbuffers.Table, i int) bool { return t.Offset(flatbuffers.VOffsetT(4+2*i)) != 0 }\n\n")
	b.WriteString("func micros(t time.Time) int64 { return t.UnixMicro() }\n\nfunc fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }\n\n")
	b.WriteString(`// checkLen stops a corrupt vector length before it becomes an allocation: every
// element takes at least one byte of the buffer. The codec recovers the panic.
func checkLen(t flatbuffers.Table, n int) int {
	if n < 0 || n > len(t.Bytes) {
		panic(fmt.Sprintf("vector of %d elements in a %d-byte buffer", n, len(t.Bytes)))
	}
	return n
}

`)
	for _, m := range msgs {
		fbBuild(&b, m)
		fbRead(&b, m)
	}
	return b.Bytes(), nil
}

func fbBuild(b *bytes.Buffer, m message) {
	fmt.Fprintf(b, "func build%s(b *flatbuffers.Builder, r *%s) flatbuffers.UOffsetT {\n", m.Name, m.GoType)
	// Strings, vectors and nested tables are written before the table starts.
	for _, f := range m.Fields {
		v, n := "o"+camel(f.Name), camel(f.Name)
		switch f.Kind {
		case kindString:
			cond := fmt.Sprintf("r.%s != \"\"", f.GoName)
			val := "r." + f.GoName
			if f.Optional {
				cond, val = "r."+f.GoName+" != nil", "*r."+f.GoName
			}
			fmt.Fprintf(b, "\tvar %s flatbuffers.UOffsetT\n\tif %s {\n\t\t%s = b.CreateString(%s)\n\t}\n", v, cond, v, val)
		case kindList:
			fmt.Fprintf(b, "\tvar %s flatbuffers.UOffsetT\n\tif r.%s != nil {\n\t\t%sStart%sVector(b, len(r.%s))\n", v, f.GoName, m.Name, n, f.GoName)
			fmt.Fprintf(b, "\t\tfor i := len(r.%s) - 1; i >= 0; i-- {\n\t\t\tb.Prepend%s(r.%s[i])\n\t\t}\n\t\t%s = b.EndVector(len(r.%s))\n\t}\n", f.GoName, fbGoTypes[f.Elem], f.GoName, v, f.GoName)
		case kindMap:
			e := entryTable(m, f)
			fmt.Fprintf(b, "\tvar %s flatbuffers.UOffsetT\n\tif r.%s != nil {\n\t\tentries := make([]flatbuffers.UOffsetT, 0, len(r.%s))\n", v, f.GoName, f.GoName)
			fmt.Fprintf(b, "\t\tfor k, val := range r.%s {\n\t\t\tkey := b.CreateString(k)\n\t\t\t%sStart(b)\n\t\t\t%sAddKey(b, key)\n\t\t\t%sAddValue(b, val)\n\t\t\tentries = append(entries, %sEnd(b))\n\t\t}\n", f.GoName, e, e, e, e)
			fmt.Fprintf(b, "\t\t%sStart%sVector(b, len(entries))\n\t\tfor i := len(entries) - 1; i >= 0; i-- {\n\t\t\tb.PrependUOffsetT(entries[i])\n\t\t}\n\t\t%s = b.EndVector(len(entries))\n\t}\n", m.Name, n, v)
		case kindMessage:
			fmt.Fprintf(b, "\tvar %s flatbuffers.UOffsetT\n\tif r.%s != nil {\n\t\t%s = build%s(b, r.%s)\n\t}\n", v, f.GoName, v, f.Message, f.GoName)
		}
	}
	fmt.Fprintf(b, "\t%sStart(b)\n", m.Name)
	for _, f := range m.Fields {
		add := fmt.Sprintf("%sAdd%s(b, ", m.Name, camel(f.Name))
		switch {
		case f.Kind == kindString || f.Kind == kindList || f.Kind == kindMap || f.Kind == kindMessage:
			v := "o" + camel(f.Name)
			fmt.Fprintf(b, "\tif %s != 0 {\n\t\t%s%s)\n\t}\n", v, add, v)
		case f.Optional && f.Kind == kindTime:
			fmt.Fprintf(b, "\tif r.%s != nil {\n\t\t%smicros(*r.%s))\n\t}\n", f.GoName, add, f.GoName)
		case f.Optional:
			fmt.Fprintf(b, "\tif r.%s != nil {\n\t\t%s*r.%s)\n\t}\n", f.GoName, add, f.GoName)
		case f.Kind == kindTime:
			fmt.Fprintf(b, "\t%smicros(r.%s))\n", add, f.GoName)
		default:
			fmt.Fprintf(b, "\t%sr.%s)\n", add, f.GoName)
		}
	}
	fmt.Fprintf(b, "\treturn %sEnd(b)\n}\n\n", m.Name)
}

func fbRead(b *bytes.Buffer, m message) {
	fmt.Fprintf(b, "func read%s(t *%s, r *%s) {\n", m.Name, m.Name, m.GoType)
	for i, f := range m.Fields {
		get := "t." + camel(f.Name) + "()"
		switch {
		case f.Kind == kindString && f.Optional:
			fmt.Fprintf(b, "\tif v := %s; v != nil {\n\t\ts := string(v)\n\t\tr.%s = &s\n\t}\n", get, f.GoName)
		case f.Kind == kindString:
			fmt.Fprintf(b, "\tr.%s = string(%s)\n", f.GoName, get)
		case f.Kind == kindTime && f.Optional:
			fmt.Fprintf(b, "\tif v := %s; v != nil {\n\t\ttm := fromMicros(*v)\n\t\tr.%s = &tm\n\t}\n", get, f.GoName)
		case f.Kind == kindTime:
			fmt.Fprintf(b, "\tr.%s = fromMicros(%s)\n", f.GoName, get)
		case f.Kind == kindList:
			n := camel(f.Name)
			fmt.Fprintf(b, "\tif present(t.Table(), %d) {\n\t\tr.%s = make([]%s, checkLen(t.Table(), t.%sLength()))\n\t\tfor i := range r.%s {\n\t\t\tr.%s[i] = t.%s(i)\n\t\t}\n\t}\n", i, f.GoName, f.Elem, n, f.GoName, f.GoName, n)
		case f.Kind == kindMap:
			n := camel(f.Name)
			fmt.Fprintf(b, "\tif present(t.Table(), %d) {\n\t\tn := checkLen(t.Table(), t.%sLength())\n\t\tr.%s = make(map[string]%s, n)\n\t\tvar e %s\n", i, n, f.GoName, f.Elem, entryTable(m, f))
			fmt.Fprintf(b, "\t\tfor i := range n {\n\t\t\tt.%s(&e, i)\n\t\t\tr.%s[string(e.Key())] = e.Value()\n\t\t}\n\t}\n", n, f.GoName)
		case f.Kind == kindMessage:
			fmt.Fprintf(b, "\tif v := t.%s(nil); v != nil {\n\t\tr.%s = new(%s)\n\t\tread%s(v, r.%s)\n\t}\n", camel(f.Name), f.GoName, f.GoStruct, f.Message, f.GoName)
		default:
			fmt.Fprintf(b, "\tr.%s = %s\n", f.GoName, get)
		}
	}
	b.WriteString("}\n\n")
}
