package io.serdebench.worker;

import com.esotericsoftware.kryo.SerializerFactory;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.FieldSerializer;
import com.esotericsoftware.kryo.unsafe.UnsafeInput;
import com.esotericsoftware.kryo.unsafe.UnsafeOutput;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.dataformat.cbor.CBORGenerator;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.google.flatbuffers.FlatBufferBuilder;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.fory.config.Language;
import serdebench.payload.pojo.Flat;
import org.apache.fory.logging.LoggerFactory;

/**
 * Codecs of plain Java objects: the payload types as Java classes
 * (serdebench.payload.pojo, written by hack/genformats), bound from the pool's JSON
 * before timing. The JVM-only serializers the FastormDB thesis compared (Java
 * serialization, Kryo default and unsafe) and Apache Fory, and CBOR with Jackson's
 * data binding, which the Go cbor codec reads.
 */
final class Pojo {
  private Pojo() {}

  /** Binds the pool's JSON to the classes, and back: times are RFC 3339 strings there. */
  private static final ObjectMapper JSON = JsonMapper.builder().addModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).build();

  /** The class of a payload type. */
  static Class<?> recordOf(Codecs.Type t) throws ClassNotFoundException {
    return Class.forName("serdebench.payload.pojo." + t.name());
  }

  /** The payload classes a type's objects hold: itself and the classes nested in it. */
  static Set<Class<?>> classes(Class<?> c) {
    Set<Class<?>> out = new LinkedHashSet<>();
    out.add(c);
    for (Field f : c.getFields()) if (f.getType().getPackage() == c.getPackage()) out.addAll(classes(f.getType()));
    return out;
  }

  /** A codec of one payload class: prepare binds the JSON to it. */
  private abstract static class Base implements Codecs.Codec {
    final Class<?> cls;

    Base(Codecs.Type t) throws ClassNotFoundException { cls = recordOf(t); }

    public Object prepare(JsonNode record, byte[] json) throws Exception { return JSON.treeToValue(record, cls); }

    @Override
    public String json(Object decoded) throws Exception { return JSON.writeValueAsString(decoded); }
  }

  /**
   * CBOR (RFC 8949) with jackson-dataformat-cbor's data binding: a map keyed by the JSON
   * names, as the Go codec writes it, times as tag 0 date/time strings.
   */
  static final class Cbor extends Base {
    private final ObjectMapper mapper = CBORMapper.builder().addModule(new JavaTimeModule())
        .addModule(new SimpleModule().addSerializer(Instant.class, new TaggedTime())).build();

    Cbor(Codecs.Type t) throws ClassNotFoundException { super(t); }

    public byte[] encode(Object nat) throws Exception { return mapper.writeValueAsBytes(nat); }

    public Object decode(byte[] b) throws Exception { return mapper.readValue(b, cls); }
  }

  /** An Instant as CBOR's standard date/time string (tag 0), as RFC 8949 defines it. */
  private static final class TaggedTime extends StdSerializer<Instant> {
    TaggedTime() { super(Instant.class); }

    @Override
    public void serialize(Instant v, JsonGenerator g, SerializerProvider p) throws IOException {
      if (g instanceof CBORGenerator c) c.writeTag(0);
      g.writeString(v.toString());
    }
  }

  /**
   * FlatBuffers with flatbuffers-java on flatc's classes (package fbgen, from the same
   * payload.fbs as the Go codec's): encode builds the buffer from the payload object
   * field by field, decode reads every field back into a new one
   * (serdebench.payload.pojo.Flat, written by hack/genformats as the Go builders are).
   */
  static final class FlatBuffers extends Base {
    private final Flat.Funcs fn;
    private final FlatBufferBuilder b = new FlatBufferBuilder(16 << 10);

    FlatBuffers(Codecs.Type t) throws ClassNotFoundException {
      super(t);
      fn = Flat.of(t.name());
    }

    public byte[] encode(Object nat) {
      b.clear();
      b.finish(fn.build(b, nat));
      return b.sizedByteArray();
    }

    public Object decode(byte[] bytes) { return fn.read(ByteBuffer.wrap(bytes)); }
  }

  /** Java's own serialization (ObjectOutputStream), reading only the payload's classes back. */
  static final class JavaSerialization extends Base {
    private static final ObjectInputFilter FILTER =
        ObjectInputFilter.Config.createFilter("serdebench.payload.pojo.*;java.time.*;java.lang.*;java.util.*;!*");
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(16 << 10);

    JavaSerialization(Codecs.Type t) throws ClassNotFoundException { super(t); }

    public byte[] encode(Object nat) throws Exception {
      out.reset();
      try (ObjectOutputStream o = new ObjectOutputStream(out)) {
        o.writeObject(nat);
      }
      return out.toByteArray();
    }

    public Object decode(byte[] b) throws Exception {
      try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(b))) {
        in.setObjectInputFilter(FILTER);
        return in.readObject();
      }
    }
  }

  /**
   * Kryo with every class registered, as the FastormDB thesis ran it: default
   * (variable-length integers, heap buffers) or unsafe (Unsafe buffers, fixed-length
   * integers).
   */
  static final class KryoCodec extends Base {
    private final com.esotericsoftware.kryo.Kryo kryo = new com.esotericsoftware.kryo.Kryo();
    private final Output out;
    private final Input in;

    KryoCodec(Codecs.Type t, boolean unsafe) throws ClassNotFoundException {
      super(t);
      kryo.setRegistrationRequired(true);
      if (unsafe) { // fields' integers fixed-length too, not only the buffer's own
        FieldSerializer.FieldSerializerConfig fixed = new FieldSerializer.FieldSerializerConfig();
        fixed.setVariableLengthEncoding(false);
        kryo.setDefaultSerializer(new SerializerFactory.FieldSerializerFactory(fixed));
      }
      for (Class<?> c : classes(cls)) kryo.register(c);
      for (Class<?> c : List.of(Instant.class, int[].class, long[].class, double[].class, boolean[].class, ArrayList.class, HashMap.class,
          java.util.LinkedHashMap.class)) kryo.register(c);
      if (unsafe) {
        UnsafeOutput o = new UnsafeOutput(16 << 10, -1);
        o.setVariableLengthEncoding(false);
        UnsafeInput i = new UnsafeInput();
        i.setVariableLengthEncoding(false);
        out = o;
        in = i;
      } else {
        out = new Output(16 << 10, -1);
        in = new Input();
      }
    }

    public byte[] encode(Object nat) {
      out.reset();
      kryo.writeObject(out, nat);
      return out.toBytes();
    }

    public Object decode(byte[] b) {
      in.setBuffer(b);
      return kryo.readObject(in, cls);
    }
  }

  /** Apache Fory (formerly Fury) in its Java mode, the payload classes registered. */
  static final class ForyCodec extends Base {
    static {
      LoggerFactory.useSlf4jLogging(true); // its own logger writes to stdout; slf4j's to stderr, at warn
    }

    private final org.apache.fory.Fory fory;

    ForyCodec(Codecs.Type t) throws ClassNotFoundException {
      super(t);
      fory = org.apache.fory.Fory.builder().withLanguage(Language.JAVA).requireClassRegistration(true).build();
      for (Class<?> c : classes(cls)) fory.register(c);
    }

    public byte[] encode(Object nat) { return fory.serialize(nat); }

    public Object decode(byte[] b) { return fory.deserialize(b); }
  }
}
