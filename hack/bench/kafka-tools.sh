# hack/bench/kafka-tools.sh — sourced by the bench scripts: Kafka's Java tools with
# the local broker's jars (hack/kafka/kafka.sh). Needs $repo and $BOOTSTRAP.
cp="$("$repo/hack/kafka/kafka.sh" perf-classpath)"
# The JDK the JVM worker runs on, else the default one: the reference Java client
# runs where the worker does (why it matters: docs/measurement.md, "Against the
# Java client").
. "$repo/hack/lib/java.sh"
bench_java="$(worker_java || command -v java)"

# kj SECONDS CLASS-OR-SOURCE-FILE ARGS...: a Kafka tool, bounded in time, its
# warnings on stderr so results on stdout stay parseable.
kj() { timeout "$1" "$bench_java" -Xmx512m -Dlog4j2.configurationFile="$repo/hack/kafka/log4j2-cli.properties" -cp "$cp" "${@:2}"; }

# kafka_topic create NAME [PARTITIONS (3)] | delete NAME
kafka_topic() {
  case $1 in
    create) kj 60 org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --create --topic "$2" \
      --partitions "${3:-3}" --replication-factor 1 >/dev/null ;;
    delete) kj 60 org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --delete --topic "$2" >/dev/null ;;
  esac
}
