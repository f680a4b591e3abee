package main

import (
	"bytes"
	"fmt"
	"strings"
)

// javaFlatVectors are the flatbuffers-java vector classes of a list's scalar kinds
// (their elements are javaTypesOf's primitives).
var javaFlatVectors = map[kind]string{kindInt64: "LongVector", kindInt32: "IntVector", kindFloat64: "DoubleVector", kindBool: "BooleanVector"}

// javaFlat writes the JVM worker's FlatBuffers builders and readers of the payload
// classes (javaClasses), on the classes flatc generates from the same payload.fbs
// (package fbgen, at build time): what flatbuffersConvert writes for Go, field by
// field in the same order and with the same absent-or-zero rules, so that both
// runtimes read each other's buffers to the same record.
func javaFlat(msgs []message) (map[string][]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage %s;\n\nimport com.google.flatbuffers.FlatBufferBuilder;\nimport java.nio.ByteBuffer;\n\n", header, javaPackage)
	b.WriteString(`/**
 * FlatBuffers builders and readers of the payload classes, on flatc's classes in
 * package fbgen: times are microseconds since the Unix epoch, maps vectors of entry
 * tables, an empty required string is absent.
 */
public final class Flat {
  private Flat() {}

  /** Builds and reads one payload class. */
  public interface Funcs {
    /** Writes r (a payload object) and returns its table. */
    int build(FlatBufferBuilder b, Object r);

    /** Reads the root table in bb into a new payload object. */
    Object read(ByteBuffer bb);
  }

  /** The functions of the payload type named name. */
  public static Funcs of(String name) {
    return switch (name) {
`)
	for _, m := range msgs {
		fmt.Fprintf(&b, "      case %q -> new Funcs() {\n        public int build(FlatBufferBuilder b, Object r) { return build%s(b, (%s) r); }\n\n", m.Name, m.Name, m.Name)
		fmt.Fprintf(&b, "        public Object read(ByteBuffer bb) {\n          %s r = new %s();\n          read%s(fbgen.%s.getRootAs%s(bb), r);\n          return r;\n        }\n      };\n", m.Name, m.Name, m.Name, m.Name, m.Name)
	}
	b.WriteString(`      default -> throw new IllegalArgumentException("no FlatBuffers table for payload type " + name);
    };
  }

  private static long micros(java.time.Instant t) { return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000); }

  private static java.time.Instant fromMicros(long us) { return java.time.Instant.ofEpochSecond(Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1000); }

  /**
   * Stops a corrupt vector length before it becomes an allocation: every element takes
   * at least one byte of the buffer.
   */
  private static int checkLen(ByteBuffer bb, int n) {
    if (n < 0 || n > bb.capacity()) throw new IllegalArgumentException("vector of " + n + " elements in a " + bb.capacity() + "-byte buffer");
    return n;
  }

`)
	for _, m := range msgs {
		if err := javaFlatBuild(&b, m); err != nil {
			return nil, err
		}
		javaFlatRead(&b, m)
	}
	b.WriteString("}\n")
	return map[string][]byte{strings.ReplaceAll(javaPackage, ".", "/") + "/Flat.java": b.Bytes()}, nil
}

func javaFlatBuild(b *bytes.Buffer, m message) error {
	fb := "fbgen." + m.Name
	fmt.Fprintf(b, "  static int build%s(FlatBufferBuilder b, %s r) {\n", m.Name, m.Name)
	// Strings, vectors and nested tables are written before the table starts.
	for _, f := range m.Fields {
		v, j := "o"+camel(f.Name), "r."+lowerCamel(f.Name)
		switch f.Kind {
		case kindString:
			cond := "!" + j + ".isEmpty()"
			if f.Optional {
				cond = j + " != null"
			}
			fmt.Fprintf(b, "    int %s = %s ? b.createString(%s) : 0;\n", v, cond, j)
		case kindList:
			if _, ok := javaFlatVectors[f.Elem]; !ok {
				return fmt.Errorf("%s.%s: no FlatBuffers vector of %s in Java", m.Name, f.Name, f.Elem)
			}
			fmt.Fprintf(b, "    int %s = %s != null ? %s.create%sVector(b, %s) : 0;\n", v, j, fb, camel(f.Name), j)
		case kindMap:
			e := "fbgen." + entryTable(m, f)
			fmt.Fprintf(b, "    int %s = 0;\n    if (%s != null) {\n      int[] entries = new int[%s.size()];\n      int i = 0;\n", v, j, j)
			fmt.Fprintf(b, "      for (var kv : %s.entrySet()) {\n        int key = b.createString(kv.getKey());\n        %s.start%s(b);\n        %s.addKey(b, key);\n        %s.addValue(b, kv.getValue());\n        entries[i++] = %s.end%s(b);\n      }\n",
				j, e, entryTable(m, f), e, e, e, entryTable(m, f))
			fmt.Fprintf(b, "      %s = %s.create%sVector(b, entries);\n    }\n", v, fb, camel(f.Name))
		case kindMessage:
			fmt.Fprintf(b, "    int %s = %s != null ? build%s(b, %s) : 0;\n", v, j, f.Message, j)
		}
	}
	fmt.Fprintf(b, "    %s.start%s(b);\n", fb, m.Name)
	for _, f := range m.Fields {
		add, j := fmt.Sprintf("%s.add%s(b, ", fb, camel(f.Name)), "r."+lowerCamel(f.Name)
		switch {
		case f.Kind == kindString || f.Kind == kindList || f.Kind == kindMap || f.Kind == kindMessage:
			v := "o" + camel(f.Name)
			fmt.Fprintf(b, "    if (%s != 0) %s%s);\n", v, add, v)
		case f.Optional && f.Kind == kindTime:
			fmt.Fprintf(b, "    if (%s != null) %smicros(%s));\n", j, add, j)
		case f.Optional:
			fmt.Fprintf(b, "    if (%s != null) %s%s);\n", j, add, j)
		case f.Kind == kindTime:
			fmt.Fprintf(b, "    %smicros(%s));\n", add, j)
		default:
			fmt.Fprintf(b, "    %s%s);\n", add, j)
		}
	}
	fmt.Fprintf(b, "    return %s.end%s(b);\n  }\n\n", fb, m.Name)
	return nil
}

func javaFlatRead(b *bytes.Buffer, m message) {
	fmt.Fprintf(b, "  static void read%s(fbgen.%s t, %s r) {\n", m.Name, m.Name, m.Name)
	for _, f := range m.Fields {
		get, j, n := "t."+lowerCamel(f.Name)+"()", "r."+lowerCamel(f.Name), camel(f.Name)
		switch {
		case f.Kind == kindString && f.Optional:
			fmt.Fprintf(b, "    %s = %s;\n", j, get)
		case f.Kind == kindString:
			fmt.Fprintf(b, "    { String v = %s; %s = v == null ? \"\" : v; }\n", get, j)
		case f.Kind == kindTime && f.Optional:
			fmt.Fprintf(b, "    %s = t.has%s() ? fromMicros(%s) : null;\n", j, n, get)
		case f.Kind == kindTime:
			fmt.Fprintf(b, "    %s = fromMicros(%s);\n", j, get)
		case f.Kind == kindList:
			fmt.Fprintf(b, "    { com.google.flatbuffers.%s v = t.%sVector();\n      if (v != null) {\n        %s = new %s[checkLen(t.getByteBuffer(), v.length())];\n        for (int i = 0; i < %s.length; i++) %s[i] = v.get(i);\n      }\n    }\n",
				javaFlatVectors[f.Elem], lowerCamel(f.Name), j, javaTypesOf[f.Elem][0], j, j)
		case f.Kind == kindMap:
			e := "fbgen." + entryTable(m, f)
			fmt.Fprintf(b, "    { %s.Vector v = t.%sVector();\n      if (v != null) {\n        int len = checkLen(t.getByteBuffer(), v.length());\n        %s = new java.util.LinkedHashMap<>(len * 2);\n        %s e = new %s();\n",
				e, lowerCamel(f.Name), j, e, e)
			fmt.Fprintf(b, "        for (int i = 0; i < len; i++) {\n          v.get(e, i);\n          %s.put(e.key(), e.value());\n        }\n      }\n    }\n", j)
		case f.Kind == kindMessage:
			fmt.Fprintf(b, "    { fbgen.%s v = %s;\n      if (v != null) {\n        %s = new %s();\n        read%s(v, %s);\n      }\n    }\n", f.Message, get, j, f.Message, f.Message, j)
		case f.Optional:
			fmt.Fprintf(b, "    %s = t.has%s() ? %s : null;\n", j, n, get)
		default:
			fmt.Fprintf(b, "    %s = %s;\n", j, get)
		}
	}
	b.WriteString("  }\n\n")
}
