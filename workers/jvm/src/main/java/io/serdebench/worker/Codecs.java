package io.serdebench.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import com.google.protobuf.util.JsonFormat;
import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.util.ClassSecurityValidator;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.Value;
import org.msgpack.value.ValueFactory;

/**
 * The JVM worker's codecs, one table: a codec's name (api/trial.Codec) and how it is
 * built for a record type. Each codec's native form is built once per pool record,
 * before anything is timed; encode and decode are what the summary times.
 */
final class Codecs {
  private Codecs() {}

  /** A codec: the record's native form, and its bytes. Not thread-safe: one per worker. */
  interface Codec {
    /** The native form of one pool record (a JSON line of cmd/pool, parsed and as bytes): untimed. */
    Object prepare(JsonNode record, byte[] json) throws Exception;

    /** The record's bytes: timed as serialize_ns. */
    byte[] encode(Object nat) throws Exception;

    /** A record read back from bytes: timed as deserialize_ns. */
    Object decode(byte[] b) throws Exception;

    /** What decode returned, as encode takes it (untimed; the wire table's roundtrip). */
    default Object nativeOf(Object decoded) throws Exception { return decoded; }

    /**
     * What decode returned as the record's JSON (cmd/pool's names, RFC 3339 times), for
     * the wire table to check a codec no other runtime reads against the pool; null
     * where the other runtime's codec checks it instead.
     */
    default String json(Object decoded) throws Exception { return null; }
  }

  /** What a codec is built from: the record type's names and schemas (cmd/pool's description). */
  record Type(String name, String protoMessage, String protoFile, String avroSchema, String jsonSchema) {}

  /**
   * What a registry variant needs beside the type: --schema-registry, the topic (its
   * subject's), and whether it writes (a producer's serializer registers its schema;
   * a consumer's deserializer only looks ids up).
   */
  record Options(String registry, String topic, boolean writes) {}

  /** Ends a registry variant's name (api/trial.RegistrySuffix). */
  static final String REGISTRY_SUFFIX = "/registry";

  private interface Factory {
    Codec make(Type t, Options o) throws Exception;
  }

  private static final Map<String, Factory> TABLE = new LinkedHashMap<>();

  static {
    TABLE.put("json", (t, o) -> new JacksonJson());
    TABLE.put("avro", (t, o) -> new Avro(t, false));
    TABLE.put("protobuf", (t, o) -> new ProtobufJava(t));
    TABLE.put("msgpack", (t, o) -> new MsgpackJava(new Schema.Parser().parse(t.avroSchema())));
    TABLE.put("raw", (t, o) -> new Raw());
    TABLE.put("avro/specific", (t, o) -> new Avro(t, true));
    TABLE.put("thrift-binary", (t, o) -> new Thrift(t, false));
    TABLE.put("thrift-compact", (t, o) -> new Thrift(t, true));
    TABLE.put("cbor", (t, o) -> new Pojo.Cbor(t));
    TABLE.put("flatbuffers", (t, o) -> new Pojo.FlatBuffers(t));
    TABLE.put("java-serialization", (t, o) -> new Pojo.JavaSerialization(t));
    TABLE.put("kryo", (t, o) -> new Pojo.KryoCodec(t, false));
    TABLE.put("kryo/unsafe", (t, o) -> new Pojo.KryoCodec(t, true));
    TABLE.put("fory", (t, o) -> new Pojo.ForyCodec(t));
    for (String format : List.of("avro", "protobuf", "json"))
      TABLE.put(format + REGISTRY_SUFFIX, (t, o) -> Registry.of(format, t, o));
  }

  /** Every codec name this worker has. */
  static final Set<String> NAMES = TABLE.keySet();

  static Codec of(String name, Type t, Options o) throws Exception {
    Factory f = TABLE.get(name);
    if (f == null) throw new IllegalArgumentException("no codec " + name);
    return f.make(t, o);
  }

  /** JSON with Jackson's tree model: the record's fields as cmd/pool wrote them. */
  static final class JacksonJson implements Codec {
    private final ObjectMapper mapper = new ObjectMapper();

    public Object prepare(JsonNode record, byte[] json) { return record; }

    public byte[] encode(Object nat) throws Exception { return mapper.writeValueAsBytes(nat); }

    public Object decode(byte[] b) throws Exception { return mapper.readTree(b); }
  }

  /** The record's JSON bytes as cmd/pool wrote them, copied as the Go raw codec does: the transport alone. */
  static final class Raw implements Codec {
    public Object prepare(JsonNode record, byte[] json) { return json; }

    public byte[] encode(Object nat) { return ((byte[]) nat).clone(); }

    public Object decode(byte[] b) { return b.clone(); }
  }

  /**
   * Apache Avro's binary encoding with the schema the Go avro codecs use: generic
   * records, or (specific) the classes avro-maven-plugin generates from the same
   * schema (src/main/avro), another library path to the same bytes.
   */
  static final class Avro implements Codec {
    static {
      // Avro 1.12 instantiates only trusted classes: the generated ones are.
      ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(ClassSecurityValidator.getGlobal(),
          c -> c.getPackageName().equals("io.serdebench.payload")));
    }

    private final Schema schema;
    private final boolean specific;
    private final DatumWriter<Object> writer;
    private final DatumReader<Object> reader;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(16 << 10);
    private BinaryEncoder enc;
    private BinaryDecoder dec;

    Avro(Type t, boolean specific) {
      schema = new Schema.Parser().parse(t.avroSchema());
      this.specific = specific;
      if (specific && SpecificData.get().getClass(schema) == null)
        throw new IllegalArgumentException("no generated Avro class for " + schema.getFullName()); // Avro would fall back to generic records
      writer = specific ? new SpecificDatumWriter<>(schema) : new GenericDatumWriter<>(schema);
      reader = specific ? new SpecificDatumReader<>(schema) : new GenericDatumReader<>(schema);
    }

    /** A generic record; a generated class's instance is read from its bytes (untimed). */
    public Object prepare(JsonNode record, byte[] json) throws Exception {
      Object generic = avroValue(schema, record);
      return specific ? decode(write(new GenericDatumWriter<>(schema), generic)) : generic;
    }

    public byte[] encode(Object nat) throws Exception { return write(writer, nat); }

    private byte[] write(DatumWriter<Object> w, Object v) throws Exception {
      out.reset();
      enc = EncoderFactory.get().binaryEncoder(out, enc);
      w.write(v, enc);
      enc.flush();
      return out.toByteArray();
    }

    public Object decode(byte[] b) throws Exception {
      dec = DecoderFactory.get().binaryDecoder(b, dec);
      return reader.read(null, dec); // a new record each time, as the Go codec decodes into a new struct
    }
  }

  /** A JSON value as the Avro schema's type (timestamps as timestamp-micros). */
  static Object avroValue(Schema s, JsonNode v) {
    switch (s.getType()) {
      case RECORD -> {
        GenericData.Record r = new GenericData.Record(s);
        for (Schema.Field f : s.getFields()) r.put(f.pos(), avroValue(f.schema(), v.path(f.name())));
        return r;
      }
      case UNION -> {
        if (v.isNull() || v.isMissingNode()) return null;
        for (Schema b : s.getTypes()) if (b.getType() != Schema.Type.NULL) return avroValue(b, v);
        throw new IllegalArgumentException("union without a non-null branch: " + s);
      }
      case ARRAY -> {
        List<Object> l = new ArrayList<>(v.size());
        for (JsonNode e : v) l.add(avroValue(s.getElementType(), e));
        return new GenericData.Array<>(s, l);
      }
      case MAP -> {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          m.put(e.getKey(), avroValue(s.getValueType(), e.getValue()));
        }
        return m;
      }
      case LONG -> {
        return "timestamp-micros".equals(logical(s)) ? micros(v.asText()) : v.asLong();
      }
      case INT -> { return v.asInt(); }
      case DOUBLE -> { return v.asDouble(); }
      case BOOLEAN -> { return v.asBoolean(); }
      case STRING -> { return v.asText(); }
      default -> throw new IllegalArgumentException("avro type " + s.getType() + " is not in the payload schemas");
    }
  }

  private static String logical(Schema s) {
    return s.getLogicalType() == null ? s.getProp("logicalType") : s.getLogicalType().getName();
  }

  /** An RFC 3339 time (Go's encoding of time.Time) in microseconds since the epoch. */
  static long micros(String rfc3339) {
    Instant i = Instant.parse(rfc3339);
    return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000);
  }

  /** protobuf-java's generated messages, from workers/payload/proto. */
  static final class ProtobufJava implements Codec {
    private final Class<?> messageClass;
    private final Message prototype;
    private final Parser<? extends Message> parser;

    ProtobufJava(Type t) throws Exception {
      String simple = t.protoMessage().substring(t.protoMessage().lastIndexOf('.') + 1);
      Class<?> outer = null;
      for (Descriptors.FileDescriptor fd : List.of(serdebench.payload.Business.getDescriptor(), serdebench.payload.Sike.getDescriptor())) {
        if (fd.findMessageTypeByName(simple) != null)
          outer = fd == serdebench.payload.Business.getDescriptor() ? serdebench.payload.Business.class : serdebench.payload.Sike.class;
      }
      if (outer == null) throw new IllegalArgumentException("no protobuf message " + t.protoMessage());
      messageClass = Class.forName(outer.getName() + "$" + simple);
      prototype = (Message) messageClass.getMethod("getDefaultInstance").invoke(null);
      parser = prototype.getParserForType();
    }

    /** The generated class of the record's message. */
    Class<?> messageClass() { return messageClass; }

    public Object prepare(JsonNode record, byte[] json) throws Exception {
      Message.Builder b = prototype.newBuilderForType();
      JsonFormat.parser().merge(record.toString(), b);
      return b.build();
    }

    public byte[] encode(Object nat) { return ((Message) nat).toByteArray(); }

    public Object decode(byte[] b) throws Exception { return parser.parseFrom(b); }
  }

  /**
   * msgpack-java's packer, writing a record as the Go msgpack codec does: a map of
   * field names, times as the timestamp extension (-1); the Avro schema gives the
   * types. Decoding reads msgpack-java's value tree.
   */
  static final class MsgpackJava implements Codec {
    private final Schema schema;
    private final MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();

    MsgpackJava(Schema schema) { this.schema = schema; }

    public Object prepare(JsonNode record, byte[] json) { return avroValue(schema, record); }

    public byte[] encode(Object nat) throws Exception {
      packer.clear();
      pack(schema, nat);
      return packer.toByteArray();
    }

    private void pack(Schema s, Object v) throws Exception {
      if (v == null) {
        packer.packNil();
        return;
      }
      switch (s.getType()) {
        case RECORD -> {
          GenericRecord r = (GenericRecord) v;
          packer.packMapHeader(s.getFields().size());
          for (Schema.Field f : s.getFields()) {
            packer.packString(f.name());
            pack(f.schema(), r.get(f.pos()));
          }
        }
        case UNION -> {
          for (Schema b : s.getTypes()) if (b.getType() != Schema.Type.NULL) { pack(b, v); return; }
        }
        case ARRAY -> {
          List<?> l = (List<?>) v;
          packer.packArrayHeader(l.size());
          for (Object e : l) pack(s.getElementType(), e);
        }
        case MAP -> {
          Map<?, ?> m = (Map<?, ?>) v;
          packer.packMapHeader(m.size());
          for (Map.Entry<?, ?> e : m.entrySet()) {
            packer.packString(e.getKey().toString());
            pack(s.getValueType(), e.getValue());
          }
        }
        case LONG -> {
          long l = (Long) v;
          if ("timestamp-micros".equals(logical(s))) packer.packTimestamp(Math.floorDiv(l, 1_000_000L), (int) Math.floorMod(l, 1_000_000L) * 1000);
          else packer.packLong(l);
        }
        case INT -> packer.packInt((Integer) v);
        case DOUBLE -> packer.packDouble((Double) v);
        case BOOLEAN -> packer.packBoolean((Boolean) v);
        case STRING -> packer.packString(v.toString());
        default -> throw new IllegalArgumentException("msgpack: avro type " + s.getType());
      }
    }

    public Object decode(byte[] b) throws Exception {
      try (MessageUnpacker u = MessagePack.newDefaultUnpacker(b)) {
        return u.unpackValue();
      }
    }

    @Override
    public Object nativeOf(Object decoded) { return fromValue(schema, (Value) decoded); }

    /** A msgpack value as the Avro schema's type. */
    private static Object fromValue(Schema s, Value v) {
      if (v.isNilValue()) return null;
      switch (s.getType()) {
        case RECORD -> {
          Map<Value, Value> m = v.asMapValue().map();
          GenericData.Record r = new GenericData.Record(s);
          for (Schema.Field f : s.getFields()) {
            Value fv = m.get(ValueFactory.newString(f.name()));
            r.put(f.pos(), fv == null ? null : fromValue(f.schema(), fv));
          }
          return r;
        }
        case UNION -> {
          for (Schema b : s.getTypes()) if (b.getType() != Schema.Type.NULL) return fromValue(b, v);
          return null;
        }
        case ARRAY -> {
          List<Object> l = new ArrayList<>();
          for (Value e : v.asArrayValue()) l.add(fromValue(s.getElementType(), e));
          return new GenericData.Array<>(s, l);
        }
        case MAP -> {
          Map<String, Object> m = new LinkedHashMap<>();
          for (Map.Entry<Value, Value> e : v.asMapValue().entrySet()) m.put(e.getKey().asStringValue().asString(), fromValue(s.getValueType(), e.getValue()));
          return m;
        }
        case LONG -> {
          if (v.isTimestampValue()) {
            Instant i = v.asTimestampValue().toInstant();
            return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
          }
          return v.asIntegerValue().asLong();
        }
        case INT -> { return v.asIntegerValue().asInt(); }
        case DOUBLE -> { return v.asFloatValue().toDouble(); }
        case BOOLEAN -> { return v.asBooleanValue().getBoolean(); }
        case STRING -> { return v.asStringValue().asString(); }
        default -> throw new IllegalArgumentException("msgpack: avro type " + s.getType());
      }
    }
  }
}
