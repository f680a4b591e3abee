package io.serdebench.worker;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.thrift.TBase;
import org.apache.thrift.TDeserializer;
import org.apache.thrift.TFieldIdEnum;
import org.apache.thrift.TSerializer;
import org.apache.thrift.meta_data.FieldMetaData;
import org.apache.thrift.meta_data.FieldValueMetaData;
import org.apache.thrift.meta_data.ListMetaData;
import org.apache.thrift.meta_data.MapMetaData;
import org.apache.thrift.meta_data.StructMetaData;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TType;

/**
 * Apache Thrift (libthrift) with the classes the Thrift compiler generates from
 * workers/payload/thriftgen/payload.thrift, the Go codec's schema: the binary or the
 * compact protocol. Times are i64 microseconds, as in the Go codec.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class Thrift implements Codecs.Codec {
  private final Class<? extends TBase> cls;
  private final TSerializer ser;
  private final TDeserializer de;

  Thrift(Codecs.Type t, boolean compact) throws Exception {
    cls = (Class<? extends TBase>) Class.forName("serdebench.payload.thrift." + t.name());
    TProtocolFactory f = compact ? new TCompactProtocol.Factory() : new TBinaryProtocol.Factory();
    ser = new TSerializer(f);
    de = new TDeserializer(f);
  }

  public Object prepare(JsonNode record, byte[] json) throws Exception { return build(cls, record); }

  public byte[] encode(Object nat) throws Exception { return ser.serialize((TBase) nat); }

  public Object decode(byte[] b) throws Exception {
    TBase o = cls.getDeclaredConstructor().newInstance();
    de.deserialize(o, b);
    return o;
  }

  /** A Thrift struct of class c from a JSON record, by the struct's own field metadata. */
  private static TBase build(Class<? extends TBase> c, JsonNode v) throws Exception {
    TBase o = c.getDeclaredConstructor().newInstance(); // initializes the class, which registers its metadata
    Map<? extends TFieldIdEnum, FieldMetaData> meta = FieldMetaData.getStructMetaDataMap((Class) c);
    for (Map.Entry<? extends TFieldIdEnum, FieldMetaData> e : meta.entrySet()) {
      JsonNode f = v.path(e.getValue().fieldName);
      if (!f.isNull() && !f.isMissingNode()) o.setFieldValue(e.getKey(), value(e.getValue().valueMetaData, f));
    }
    return o;
  }

  private static Object value(FieldValueMetaData m, JsonNode v) throws Exception {
    switch (m.type) {
      case TType.I64 -> { return v.isTextual() ? Codecs.micros(v.asText()) : v.asLong(); } // a time is an RFC 3339 string in JSON
      case TType.I32 -> { return v.asInt(); }
      case TType.DOUBLE -> { return v.asDouble(); }
      case TType.BOOL -> { return v.asBoolean(); }
      case TType.STRING -> { return v.asText(); }
      case TType.STRUCT -> { return build(((StructMetaData) m).structClass, v); }
      case TType.LIST -> {
        List<Object> l = new ArrayList<>(v.size());
        for (JsonNode e : v) l.add(value(((ListMetaData) m).elemMetaData, e));
        return l;
      }
      case TType.MAP -> {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          out.put(e.getKey(), value(((MapMetaData) m).valueMetaData, e.getValue()));
        }
        return out;
      }
      default -> throw new IllegalArgumentException("thrift type " + m.type + " is not in the payload schemas");
    }
  }
}
