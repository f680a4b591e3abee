package io.serdebench.worker;

import java.util.Properties;

/** The Kafka client settings every client of this worker shares: the brokers and their security. */
final class Kafka {
  private Kafka() {}

  static Properties common(Args a, String clientID) throws Args.UsageException {
    Properties p = new Properties();
    p.put("bootstrap.servers", String.join(",", a.bootstrap));
    p.put("client.id", clientID);
    boolean sasl = !a.saslMechanism.isEmpty();
    p.put("security.protocol", a.tls ? (sasl ? "SASL_SSL" : "SSL") : (sasl ? "SASL_PLAINTEXT" : "PLAINTEXT"));
    if (a.tlsInsecure)
      throw new Args.UsageException("--tls-insecure: Kafka's Java client verifies the broker's certificate; give its CA with --tls-ca-file");
    if (!a.tlsCAFile.isEmpty()) {
      p.put("ssl.truststore.type", "PEM");
      p.put("ssl.truststore.location", a.tlsCAFile);
    }
    if (sasl) {
      String user = env("SERDEBENCH_SASL_USERNAME"), pass = env("SERDEBENCH_SASL_PASSWORD");
      String module = switch (a.saslMechanism) {
        case "PLAIN" -> "org.apache.kafka.common.security.plain.PlainLoginModule";
        case "SCRAM-SHA-256", "SCRAM-SHA-512" -> "org.apache.kafka.common.security.scram.ScramLoginModule";
        default -> throw new Args.UsageException("--sasl-mechanism " + a.saslMechanism + ": want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512");
      };
      p.put("sasl.mechanism", a.saslMechanism);
      p.put("sasl.jaas.config", module + " required username=\"" + jaas(user) + "\" password=\"" + jaas(pass) + "\";");
    }
    return p;
  }

  private static String env(String k) {
    String v = System.getenv(k);
    return v == null ? "" : v;
  }

  private static String jaas(String s) { return s.replace("\\", "\\\\").replace("\"", "\\\""); }
}
