package io.serdebench.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apicurio.registry.resolver.client.RegistryClientFacade;
import io.apicurio.registry.resolver.client.RegistryClientFacadeFactory;
import io.apicurio.registry.resolver.config.SchemaResolverConfig;
import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.jsonschema.JsonSchemaKafkaDeserializer;
import io.apicurio.registry.serde.jsonschema.JsonSchemaKafkaSerializer;
import io.apicurio.registry.serde.protobuf.ProtobufKafkaDeserializer;
import io.apicurio.registry.serde.protobuf.ProtobufKafkaSerializer;
import io.apicurio.registry.serde.protobuf.ProtobufSchemaParser;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The registry variants (avro/registry, protobuf/registry, json/registry) through
 * Apicurio Registry's Kafka serdes, configured to write what Confluent's serializers
 * write: a zero byte, the schema's 4-byte id, protobuf's message indexes, then the
 * format's bytes. Confluent's own serdes are not on Maven Central; Apicurio's are, and
 * they speak Apicurio's native API, so the registry must be Apicurio Registry: the
 * worker's --schema-registry is its Confluent-compatible API (the Go workers'), and
 * the native API beside it is derived from that URL.
 *
 * <p>Both runtimes use one schema id because they register one text: the Go codecs'
 * (cmd/pool's description), through the Confluent-compatible API as the Go workers'
 * client does, before the serdes start; the serializer then uses that version (as
 * Confluent's do with use.schema.id, auto.register.schemas off). Left to
 * register their own, the serdes would register Java's rendering of the schema (Avro
 * orders a schema's keys otherwise, protobuf-java prints a .proto otherwise): another
 * content, another id, which the Go codecs refuse as not theirs. (A registry asked to
 * normalize does not help: Apicurio 2.4 then stores an Avro schema with its fields
 * sorted by name, which changes the encoding.)
 */
final class Registry {
  private Registry() {}

  /**
   * The serdes log through java.util.logging, two lines per serde made against a 2.x
   * registry (Apicurio's deprecation notice, under the factory's simple class name):
   * only their errors.
   */
  private static final List<Logger> QUIET = List.of(Logger.getLogger("io.apicurio"), Logger.getLogger("RegistryClientFacadeFactory"));

  static {
    QUIET.forEach(l -> l.setLevel(Level.SEVERE));
  }

  /** The part of --schema-registry that names Apicurio's Confluent-compatible API. */
  static final String CCOMPAT = "/apis/ccompat/";

  /** One request to the registry: as the Go workers' client bounds it. */
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** The worker's own requests' client: one for the process, as an HttpClient is meant to be shared (never closed). */
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

  /** Tries of one request, as the Go workers' client makes them (workers/registry). */
  private static final int ATTEMPTS = 4;

  /**
   * The wait before retry i (from 0), drawn as the Go workers' client draws it: uniform
   * in [0, 1 s·2^i), so that producers refused together do not come back together.
   */
  static Duration backoff(int i) {
    return Duration.ofNanos(ThreadLocalRandom.current().nextLong(Duration.ofSeconds(1).toNanos() << i));
  }

  /**
   * Apicurio's native (v2) API beside the Confluent-compatible one at ccompat (a usage
   * error: a worker checks it before it starts).
   */
  static String nativeAPI(String ccompat) throws Args.UsageException {
    if (ccompat.isEmpty()) throw new Args.UsageException("the registry codecs need --schema-registry");
    int i = ccompat.indexOf(CCOMPAT);
    if (i < 0)
      throw new Args.UsageException("--schema-registry " + ccompat + ": the JVM worker's registry codecs use Apicurio Registry's serdes,"
          + " which need Apicurio's own API beside its Confluent-compatible one; give Apicurio's " + CCOMPAT + "vN URL");
    return ccompat.substring(0, i) + "/apis/registry/v2";
  }

  /** The serdes' settings for the registry at url (Apicurio's native API). */
  private static Map<String, Object> config(String url) {
    Map<String, Object> c = new HashMap<>();
    c.put("apicurio.registry.url", url);
    c.put("apicurio.registry.auto-register", "false");
    // Confluent's framing: the id in the value, 4 bytes (Default4ByteIdHandler, the
    // default), the content's id (what a Confluent-compatible API calls a schema id),
    // no Kafka headers.
    c.put("apicurio.registry.headers.enabled", "false");
    c.put("apicurio.registry.use-id", "contentId");
    // Confluent's serializers do not validate a record against its schema by default.
    c.put("apicurio.registry.serde.validation-enabled", "false");
    // A schema looked up stays cached as long as the serde lives, as the Go client's
    // and Confluent's do: Apicurio's default of 30 s would put three requests into
    // the timed encode of a generic Avro record or a JSON tree every 30 s (the
    // serializer keeps a schema for good only for a generated class's records).
    c.put("apicurio.registry.check-period-ms", Long.toString(Long.MAX_VALUE / 2));
    c.put("apicurio.registry.http.adapter", "JDK");
    return c;
  }

  /**
   * The registry variant of format (avro, protobuf, json) for t's records on topic,
   * around the format's own codec (its native form and its record JSON).
   */
  static Codecs.Codec of(String format, Codecs.Type t, Codecs.Options o) throws Exception {
    Map<String, Object> c = config(nativeAPI(o.registry()));
    Cost cost = new Cost();
    return switch (format) {
      case "avro" -> {
        Own own = pin(c, o, cost, "AVRO", t.avroSchema());
        RegistryClientFacade f = cost.facade(c);
        yield new Framed(new Codecs.Avro(t, false), new AvroKafkaSerializer<>(f), new AvroKafkaDeserializer<>(f), c, o.topic(), own);
      }
      case "protobuf" -> {
        Own own = pin(c, o, cost, "PROTOBUF", t.protoFile());
        Codecs.ProtobufJava inner = new Codecs.ProtobufJava(t);
        // Confluent's message indexes instead of Apicurio's type reference.
        c.put("apicurio.registry.serde.send-indexes", "true");
        c.put("apicurio.registry.serde.read-indexes", "true");
        c.put("apicurio.registry.serde.send-type-ref", "false");
        c.put("apicurio.registry.serde.read-type-ref", "false");
        c.put("apicurio.registry.deserializer.value.return-class", inner.messageClass().getName());
        // The first value's schema is parsed by wire-schema (Kotlin): seconds of class
        // loading and interpreted code in a cold JVM, which a reader would pay on its
        // first record, inside the trial. Parsing the same text now pays it here.
        if (!o.writes()) new ProtobufSchemaParser<>().parseSchema(t.protoFile().getBytes(StandardCharsets.UTF_8), Map.of());
        RegistryClientFacade f = cost.facade(c);
        yield new Framed(inner, new ProtobufKafkaSerializer<>(f), new ProtobufKafkaDeserializer<>(f), c, o.topic(), own);
      }
      case "json" -> {
        Own own = pin(c, o, cost, "JSON", t.jsonSchema());
        RegistryClientFacade f = cost.facade(c);
        yield new Framed(new Codecs.JacksonJson(), new JsonSchemaKafkaSerializer<>(f), new JsonSchemaKafkaDeserializer<>(f), c, o.topic(), own);
      }
      default -> throw new IllegalArgumentException("no registry variant of " + format);
    };
  }

  /**
   * A writer's serializer uses the version of the Go codecs' text under the topic's
   * subject (TopicIdStrategy: Confluent's TopicNameStrategy), registered first; a
   * reader's deserializer needs only the ids in the values.
   */
  private static Own pin(Map<String, Object> c, Codecs.Options o, Cost cost, String type, String text) throws Exception {
    Own own = new Own(o.registry(), o.topic() + "-value", type, text, cost);
    if (o.writes()) c.put("apicurio.registry.artifact.version", own.register());
    return own;
  }

  /**
   * The schema a codec writes and expects under its subject, through the
   * Confluent-compatible API at ccompat: a writer registers it first, as the Go
   * workers' client does; a reader makes the check the Go consumers make too, that
   * the first value of each schema id carries this schema (its id under the subject,
   * one lookup), so that a value of another schema is an error naming both ids, not
   * a wrong decode.
   */
  record Own(String ccompat, String subject, String type, String text, Cost cost) {
    private String url() { return ccompat + "/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8); }

    private ObjectNode body() { return JsonNodeFactory.instance.objectNode().put("schema", text).put("schemaType", type); }

    /** Registers the text (the same text is the same version, whoever comes first) and returns its version. */
    String register() throws Exception {
      post(cost, url() + "/versions", body(), "register " + type + " schema under " + subject);
      return lookup().path("version").asText();
    }

    /** This schema's id under the subject (the lookup registers nothing). */
    int id() throws Exception {
      return lookup().path("id").asInt();
    }

    private JsonNode lookup() throws Exception {
      return post(cost, url(), body(), "look up " + type + " schema under " + subject);
    }
  }

  /**
   * The response's JSON, tried as the Go workers' client tries: again after a network
   * error (no answer in time, no connection), a 408, 409, 429 or 5xx (producers
   * registering a new subject at once get Apicurio's 409 Conflict or 500; a later
   * try finds it), at most ATTEMPTS times with backoff's waits; any other answer is
   * final.
   */
  private static JsonNode post(Cost cost, String url, ObjectNode body, String what) throws Exception {
    HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT)
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
    String last = "";
    for (int i = 0; i < ATTEMPTS; i++) {
      if (i > 0) Thread.sleep(backoff(i - 1).toMillis());
      HttpResponse<String> resp;
      long t0 = System.nanoTime();
      try {
        resp = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        last = e instanceof HttpTimeoutException ? "no answer in " + TIMEOUT.toSeconds() + " s" : e.toString();
        continue;
      } finally {
        cost.add(t0);
      }
      int code = resp.statusCode();
      if (code / 100 == 2) return new ObjectMapper().readTree(resp.body());
      last = code + " " + resp.body();
      if (code != 408 && code != 409 && code != 429 && code / 100 != 5) break;
    }
    throw new IllegalStateException("schema registry " + url + ": " + what + ": " + last);
  }

  /**
   * A format's codec framed by the registry's serdes: encode is the serializer's whole
   * work (id from its cache, header, the format's bytes), decode the deserializer's.
   */
  static final class Framed implements Codecs.Codec {
    private final Codecs.Codec inner;
    private final Serializer<Object> ser;
    private final Deserializer<Object> de;
    private final String topic;
    private final Own own;
    /** The writer ids known to be this codec's schema. */
    private final Set<Integer> checked = new HashSet<>();

    @SuppressWarnings("unchecked")
    Framed(Codecs.Codec inner, Serializer<?> ser, Deserializer<?> de, Map<String, Object> config, String topic, Own own) {
      this.inner = inner;
      this.ser = (Serializer<Object>) ser;
      this.de = (Deserializer<Object>) de;
      this.topic = topic;
      this.own = own;
      this.ser.configure(config, false);
      this.de.configure(config, false);
    }

    public Object prepare(JsonNode record, byte[] json) throws Exception { return inner.prepare(record, json); }

    public byte[] encode(Object nat) { return ser.serialize(topic, nat); }

    public Object decode(byte[] b) throws Exception {
      if (b.length >= 5 && b[0] == 0) { // anything else is the deserializer's to refuse
        int id = ByteBuffer.wrap(b, 1, 4).getInt();
        if (!checked.contains(id)) {
          int mine = own.id();
          if (id != mine)
            throw new IllegalStateException("value written with schema id " + id + ", not this codec's (id " + mine + " under " + own.subject() + ")");
          checked.add(id);
        }
      }
      return de.deserialize(topic, b);
    }

    @Override
    public Object nativeOf(Object decoded) throws Exception { return inner.nativeOf(decoded); }

    @Override
    public String json(Object decoded) throws Exception { return inner.json(decoded); }

    /** What the codec's registry requests cost so far, as the summary's registry block. */
    ObjectNode cost() { return own.cost().json(); }
  }

  /**
   * What one codec's registry client spent over the whole run (workers/summary.RegistryStats):
   * its own requests (a writer's registration, a reader's lookup of its id) and the
   * serdes' calls to the registry, each with its time. A serde's call is one request
   * unless Apicurio's client retries a network error inside it (its time then holds
   * the retries). The serdes look ids up inside encode and decode, so the records'
   * registry time is in codecNanos: the block says lookupInCodec, its lookupNanos measuring nothing.
   */
  static final class Cost {
    private final AtomicLong requests = new AtomicLong(), nanos = new AtomicLong();

    void add(long startNanos) {
      requests.incrementAndGet();
      nanos.addAndGet(System.nanoTime() - startNanos);
    }

    /** The serdes' registry client as they would make it from config, its calls counted. */
    RegistryClientFacade facade(Map<String, Object> config) {
      RegistryClientFacade inner = RegistryClientFacadeFactory.create(new SchemaResolverConfig(config));
      return (RegistryClientFacade) Proxy.newProxyInstance(RegistryClientFacade.class.getClassLoader(), new Class<?>[] {RegistryClientFacade.class},
          (proxy, m, args) -> {
            if (m.getDeclaringClass() == Object.class || m.getName().equals("getClient")) return m.invoke(inner, args);
            long t0 = System.nanoTime();
            try {
              return m.invoke(inner, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            } finally {
              add(t0);
            }
          });
    }

    ObjectNode json() {
      // The serdes look ids up inside encode and decode: no header time apart.
      return JsonNodeFactory.instance.objectNode().put("requests", requests.get()).put("requestNanos", nanos.get()).put("lookupNanos", 0)
          .put("lookupInCodec", true);
    }
  }
}
