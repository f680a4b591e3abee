package v1alpha1

import "github.com/serdebench/serdebench/api/trial"

// ExperimentSpec is what to measure: which codecs and payloads, with which producer
// settings, how much traffic and how it is shaped. Lists and the matrix multiply into
// trials; every trial runs on a fresh topic.
// +kubebuilder:validation:XValidation:rule="has(self.records) != has(self.durationSeconds)",message="exactly one of records and durationSeconds must be set"
// +kubebuilder:validation:XValidation:rule="!has(self.rate) || !has(self.rate.search) || (has(self.durationSeconds) && has(self.rate.recordsPerSecond) && self.rate.recordsPerSecond > 0)",message="rate.search needs a starting rate.recordsPerSecond and durationSeconds (the longest the search may take)"
// +kubebuilder:validation:XValidation:rule="!has(self.rate) || !has(self.rate.search) || !has(self.durationSeconds) || !has(self.rate.search.stepSeconds) || 2 * self.rate.search.stepSeconds <= self.durationSeconds",message="rate.search.stepSeconds must fit twice in durationSeconds: the search's first step alone raises no rate, and a step cut short is not sustained"
// +kubebuilder:validation:XValidation:rule="!has(self.rate) || !has(self.rate.search) || !has(self.matrix) || !has(self.matrix.recordsPerSecond) || size(self.matrix.recordsPerSecond) == 0",message="rate.search chooses the rates itself: leave matrix.recordsPerSecond empty"
// +kubebuilder:validation:XValidation:rule="!has(self.rate) || !has(self.rate.search) || !has(self.rate.search.maxRecordsPerSecond) || !has(self.rate.recordsPerSecond) || self.rate.search.maxRecordsPerSecond > self.rate.recordsPerSecond",message="rate.search.maxRecordsPerSecond must be above the starting rate.recordsPerSecond"
// +kubebuilder:validation:XValidation:rule="!has(self.producer) || !has(self.producer.idempotent) || !self.producer.idempotent || !has(self.matrix) || ((!has(self.matrix.acks) || self.matrix.acks.all(a, a == 'all')) && (!has(self.matrix.maxInFlight) || self.matrix.maxInFlight.all(m, m == 1)))",message="idempotent producers need acks: all and maxInFlight: 1 in every matrix value"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.transactions) && size(self.matrix.transactions) > 0 ? self.matrix.transactions.exists(v, has(v.recordsPerTransaction) || has(v.transactionMillis)) : (has(self.producer) && has(self.producer.transactions) && [self.producer.transactions].exists(v, has(v.recordsPerTransaction) || has(v.transactionMillis)))) && (has(self.matrix) && has(self.matrix.acks) && size(self.matrix.acks) > 0 ? self.matrix.acks : (has(self.producer) && has(self.producer.acks) ? [self.producer.acks] : [])).exists(a, a != 'all'))",message="transactional producers need acks: all in every matrix value"
// +kubebuilder:validation:XValidation:rule="!has(self.warmup) || !(has(self.warmup.records) && self.warmup.records > 0 && has(self.warmup.durationSeconds) && self.warmup.durationSeconds > 0)",message="warmup.records and warmup.durationSeconds are mutually exclusive"
// +kubebuilder:validation:XValidation:rule="size(self.codecs) * (has(self.payload.sizesBytes) ? size(self.payload.sizesBytes) : 1) * (!has(self.matrix) ? 1 : ((has(self.matrix.batchSizeBytes) && size(self.matrix.batchSizeBytes) > 0 ? size(self.matrix.batchSizeBytes) : 1) * (has(self.matrix.lingerMs) && size(self.matrix.lingerMs) > 0 ? size(self.matrix.lingerMs) : 1) * (has(self.matrix.acks) && size(self.matrix.acks) > 0 ? size(self.matrix.acks) : 1) * (has(self.matrix.compression) && size(self.matrix.compression) > 0 ? size(self.matrix.compression) : 1) * (has(self.matrix.maxInFlight) && size(self.matrix.maxInFlight) > 0 ? size(self.matrix.maxInFlight) : 1) * (has(self.matrix.mode) && size(self.matrix.mode) > 0 ? size(self.matrix.mode) : 1) * (has(self.matrix.recordsPerSecond) && size(self.matrix.recordsPerSecond) > 0 ? size(self.matrix.recordsPerSecond) : 1) * (has(self.matrix.client) && size(self.matrix.client) > 0 ? size(self.matrix.client) : 1) * (has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? size(self.matrix.consumerClient) : 1) * (has(self.matrix.payloadCompression) && size(self.matrix.payloadCompression) > 0 ? size(self.matrix.payloadCompression) : 1) * (has(self.matrix.records) && size(self.matrix.records) > 0 ? size(self.matrix.records) : 1) * (has(self.matrix.transactions) && size(self.matrix.transactions) > 0 ? size(self.matrix.transactions) : 1) * (has(self.matrix.isolation) && size(self.matrix.isolation) > 0 ? size(self.matrix.isolation) : 1) * (has(self.matrix.groupProtocol) && size(self.matrix.groupProtocol) > 0 ? size(self.matrix.groupProtocol) : 1) * (has(self.matrix.groupType) && size(self.matrix.groupType) > 0 ? size(self.matrix.groupType) : 1)) + (has(self.matrix.include) ? size(self.matrix.include) : 0)) * (!has(self.faults) ? 1 : size(self.faults.scenarios) + (!has(self.faults.baseline) || self.faults.baseline ? 1 : 0)) * (has(self.repeatUntil) ? self.repeatUntil.maxRepetitions : (has(self.repetitions) ? self.repetitions : 1)) <= ((has(self.faults) || ((has(self.producer) && has(self.producer.transactions) && (has(self.producer.transactions.recordsPerTransaction) || has(self.producer.transactions.transactionMillis))) || (has(self.matrix) && has(self.matrix.transactions) && self.matrix.transactions.exists(v, has(v.recordsPerTransaction) || has(v.transactionMillis))) || (has(self.matrix) && has(self.matrix.include) && self.matrix.include.exists(p, has(p.transactions) && (has(p.transactions.recordsPerTransaction) || has(p.transactions.transactionMillis)))))) && (has(self.repeatUntil) || (has(self.repetitions) && self.repetitions > 1)) ? 64 : (has(self.faults) || ((has(self.producer) && has(self.producer.transactions) && (has(self.producer.transactions.recordsPerTransaction) || has(self.producer.transactions.transactionMillis))) || (has(self.matrix) && has(self.matrix.transactions) && self.matrix.transactions.exists(v, has(v.recordsPerTransaction) || has(v.transactionMillis))) || (has(self.matrix) && has(self.matrix.include) && self.matrix.include.exists(p, has(p.transactions) && (has(p.transactions.recordsPerTransaction) || has(p.transactions.transactionMillis))))) || has(self.repeatUntil) || (has(self.repetitions) && self.repetitions > 1) ? 128 : 256))",message="the matrix expands to more than 256 trials, 128 with faults, transactions or repetitions, 64 with repetitions and faults or transactions (codecs × sizes × matrix values and included combinations × fault scenarios × repetitions, repeatUntil.maxRepetitions when set)"
// +kubebuilder:validation:XValidation:rule="!has(self.repeatUntil) || !has(self.repetitions) || self.repeatUntil.maxRepetitions > self.repetitions",message="repeatUntil.maxRepetitions must exceed repetitions (the fewest rounds it runs)"
// +kubebuilder:validation:XValidation:rule="!has(self.matrix) || !has(self.matrix.records) || size(self.matrix.records) == 0 || has(self.records)",message="matrix.records sweeps the measured records: set records, not durationSeconds"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || has(self.durationSeconds)",message="faults begin and end at times in the measured window: set durationSeconds, not records"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || !has(self.durationSeconds) || !has(self.intervalSeconds) || self.faults.scenarios.all(f, f.startSeconds + (has(f.durationSeconds) ? f.durationSeconds : 0) + ((has(self.faults.recovery) && has(self.faults.recovery.intervals) ? self.faults.recovery.intervals : 3) + 1) * self.intervalSeconds <= self.durationSeconds)",message="a fault must end early enough for its recovery to be judged in the window: startSeconds + durationSeconds + (faults.recovery.intervals + 1) × intervalSeconds must not exceed the spec's durationSeconds"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || !has(self.intervalSeconds) || self.faults.scenarios.all(f, f.startSeconds >= 2 * self.intervalSeconds)",message="a fault's startSeconds must be at least 2 × intervalSeconds: its before-phase, what recovered means, needs a whole interval before the fault"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || !has(self.warmup) || !has(self.warmup.records) || self.warmup.records == 0",message="with faults, warm up by warmup.durationSeconds: a fault's start is timed from the measured window's"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || self.intervalSeconds <= 2",message="faults are measured in whole intervals (their phases, the time to the first error, the recovery): set intervalSeconds to 1 or 2"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || !has(self.rate) || !has(self.rate.search)",message="rate.search and faults do not combine: a search's steps would meet the fault at different rates"
// +kubebuilder:validation:XValidation:rule="!has(self.payload.schema) || self.payload.schema != 'bytes' || self.codecs.all(c, c == 'raw')",message="payload.schema bytes is an opaque record: only the raw codec applies"
// +kubebuilder:validation:XValidation:rule="!has(self.topic) || !has(self.topic.name) || !((has(self.matrix) && has(self.matrix.groupType) && size(self.matrix.groupType) > 0 ? self.matrix.groupType.exists(v, v == 'share') : (has(self.consumer) && has(self.consumer.groupType) && self.consumer.groupType == 'share')) || (has(self.matrix) && has(self.matrix.include) && self.matrix.include.exists(p, has(p.groupType) && p.groupType == 'share')))",message="a share group runs on a topic of its own: topic.name (an existing topic) is for consumer groups"
// +kubebuilder:validation:XValidation:rule="!has(self.consumer) || !has(self.consumer.share) || ((has(self.matrix) && has(self.matrix.groupType) && size(self.matrix.groupType) > 0 ? self.matrix.groupType.exists(v, v == 'share') : (has(self.consumer) && has(self.consumer.groupType) && self.consumer.groupType == 'share')) || (has(self.matrix) && has(self.matrix.include) && self.matrix.include.exists(p, has(p.groupType) ? p.groupType == 'share' : (has(self.consumer) && has(self.consumer.groupType) && self.consumer.groupType == 'share'))))",message="consumer.share applies to share groups, and no trial has one (consumer.groupType, matrix.groupType or matrix.include): set groupType share, or remove consumer.share"
// +kubebuilder:validation:XValidation:rule="!has(self.matrix) || !((has(self.matrix.batchSizeBytes) && size(self.matrix.batchSizeBytes) > 0) || (has(self.matrix.lingerMs) && size(self.matrix.lingerMs) > 0)) || ((has(self.matrix) && has(self.matrix.mode) && size(self.matrix.mode) > 0) ? self.matrix.mode.exists(v, v == 'batch') : (!has(self.mode) || self.mode == 'batch'))",message="matrix.batchSizeBytes and matrix.lingerMs sweep batch mode's settings, and no trial of the matrix is in batch mode (mode, matrix.mode): single mode sends each record alone; remove the sweep, or sweep mode too"
// +kubebuilder:validation:XValidation:rule="!has(self.producer) || !((has(self.producer.batchSizeBytes) && self.producer.batchSizeBytes != 16384) || (has(self.producer.lingerMs) && self.producer.lingerMs != 5)) || ((has(self.matrix) && has(self.matrix.mode) && size(self.matrix.mode) > 0) ? self.matrix.mode.exists(v, v == 'batch') : (!has(self.mode) || self.mode == 'batch')) || (has(self.matrix) && has(self.matrix.include) && self.matrix.include.exists(p, (has(p.mode) ? p.mode == 'batch' : (!has(self.mode) || self.mode == 'batch'))))",message="producer.batchSizeBytes and producer.lingerMs apply to batch mode, and no trial is in it (mode, matrix.mode, matrix.include): single mode sends each record alone; leave them at their defaults, or add a batch-mode trial"
// +kubebuilder:validation:XValidation:rule="!has(self.matrix) || !has(self.matrix.include) || self.matrix.include.all(p, !(has(p.batchSizeBytes) || has(p.lingerMs)) || (has(p.mode) ? p.mode == 'batch' : (!has(self.mode) || self.mode == 'batch')))",message="matrix.include: a point in single mode sets batchSizeBytes or lingerMs, which single mode ignores (it sends each record alone): remove them from the point"
// +kubebuilder:validation:XValidation:rule="!has(self.payload.source) || self.codecs.all(c, c in ['json', 'json/goccy', 'avro', 'protobuf', 'msgpack', 'cbor', 'raw', 'avro/registry', 'protobuf/registry', 'json/registry'])",message="with payload.source only json, json/goccy, avro, protobuf, msgpack, cbor, raw and the registry variants apply: the other codecs need code generated from the schema"
// +kubebuilder:validation:XValidation:rule="!has(self.payload.source) || !self.codecs.exists(c, c == 'avro/registry') || self.payload.source.format == 'avro'",message="codec avro/registry with payload.source registers its Avro schema (format: avro)"
// +kubebuilder:validation:XValidation:rule="!has(self.payload.source) || !self.codecs.exists(c, c == 'protobuf/registry') || self.payload.source.format == 'protobuf'",message="codec protobuf/registry with payload.source registers its .proto (format: protobuf)"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'sarama') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'sarama')) && (has(self.matrix) && has(self.matrix.transactions) && size(self.matrix.transactions) > 0 ? self.matrix.transactions.exists(v, has(v.recordsPerTransaction) || has(v.transactionMillis)) : (has(self.producer) && has(self.producer.transactions) ? [self.producer.transactions] : []).exists(v, has(v.recordsPerTransaction) || has(v.transactionMillis))))",message="unsupported: client sarama has no transactions: sarama 1.61.1's transaction manager races on its own state when a send fails mid-transaction (its status and partition locks guard one field: IBM/sarama#2913, #2915, unfixed); a data race is undefined behaviour, so serdebench does not measure transactions with it"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'java') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'java')) && (has(self.matrix) && has(self.matrix.transactions) && size(self.matrix.transactions) > 0 ? self.matrix.transactions.exists(v, has(v.recordsPerTransaction) || has(v.transactionMillis)) : (has(self.producer) && has(self.producer.transactions) ? [self.producer.transactions] : []).exists(v, has(v.recordsPerTransaction) || has(v.transactionMillis))))",message="unsupported: client java has no transactions: the JVM worker (workers/jvm) has no transactional producer yet"
// +kubebuilder:validation:XValidation:rule="!(!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0) || (has(self.consumer) && has(self.consumer.client))) && (has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'sarama') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'sarama')) && (has(self.matrix) && has(self.matrix.groupProtocol) && size(self.matrix.groupProtocol) > 0 ? self.matrix.groupProtocol.exists(v, v == 'consumer') : (has(self.consumer) && has(self.consumer.groupProtocol) ? [self.consumer.groupProtocol] : []).exists(v, v == 'consumer')))",message="unsupported: client sarama has no consumer group protocol (KIP-848): sarama speaks only the classic protocol (JoinGroup/SyncGroup); it has no ConsumerGroupHeartbeat member"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'sarama') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'sarama')) && (has(self.matrix) && has(self.matrix.groupProtocol) && size(self.matrix.groupProtocol) > 0 ? self.matrix.groupProtocol.exists(v, v == 'consumer') : (has(self.consumer) && has(self.consumer.groupProtocol) ? [self.consumer.groupProtocol] : []).exists(v, v == 'consumer')))",message="unsupported: consumer client sarama has no consumer group protocol (KIP-848): sarama speaks only the classic protocol (JoinGroup/SyncGroup); it has no ConsumerGroupHeartbeat member"
// +kubebuilder:validation:XValidation:rule="!(!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0) || (has(self.consumer) && has(self.consumer.client))) && (has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'sarama') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'sarama')) && (has(self.matrix) && has(self.matrix.groupType) && size(self.matrix.groupType) > 0 ? self.matrix.groupType.exists(v, v == 'share') : (has(self.consumer) && has(self.consumer.groupType) ? [self.consumer.groupType] : []).exists(v, v == 'share')))",message="unsupported: client sarama has no share groups (KIP-932): sarama has no share consumer (no ShareGroupHeartbeat, ShareFetch or ShareAcknowledge)"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'sarama') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'sarama')) && (has(self.matrix) && has(self.matrix.groupType) && size(self.matrix.groupType) > 0 ? self.matrix.groupType.exists(v, v == 'share') : (has(self.consumer) && has(self.consumer.groupType) ? [self.consumer.groupType] : []).exists(v, v == 'share')))",message="unsupported: consumer client sarama has no share groups (KIP-932): sarama has no share consumer (no ShareGroupHeartbeat, ShareFetch or ShareAcknowledge)"
// +kubebuilder:validation:XValidation:rule="!(!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0) || (has(self.consumer) && has(self.consumer.client))) && (has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'librdkafka') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'librdkafka')) && (has(self.matrix) && has(self.matrix.groupType) && size(self.matrix.groupType) > 0 ? self.matrix.groupType.exists(v, v == 'share') : (has(self.consumer) && has(self.consumer.groupType) ? [self.consumer.groupType] : []).exists(v, v == 'share')))",message="unsupported: client librdkafka has no share groups (KIP-932): librdkafka 2.11.1 (the newest confluent-kafka-go the module proxy serves) has no share consumer: KIP-932 is not in its releases"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'librdkafka') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'librdkafka')) && (has(self.matrix) && has(self.matrix.groupType) && size(self.matrix.groupType) > 0 ? self.matrix.groupType.exists(v, v == 'share') : (has(self.consumer) && has(self.consumer.groupType) ? [self.consumer.groupType] : []).exists(v, v == 'share')))",message="unsupported: consumer client librdkafka has no share groups (KIP-932): librdkafka 2.11.1 (the newest confluent-kafka-go the module proxy serves) has no share consumer: KIP-932 is not in its releases"
// +kubebuilder:validation:XValidation:rule="!(!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0) || (has(self.consumer) && has(self.consumer.client))) && (has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'java') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'java')) && (has(self.matrix) && has(self.matrix.groupType) && size(self.matrix.groupType) > 0 ? self.matrix.groupType.exists(v, v == 'share') : (has(self.consumer) && has(self.consumer.groupType) ? [self.consumer.groupType] : []).exists(v, v == 'share')))",message="unsupported: client java has no share groups (KIP-932): the JVM worker (workers/jvm) has no share consumer (KafkaShareConsumer) yet"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'java') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'java')) && (has(self.matrix) && has(self.matrix.groupType) && size(self.matrix.groupType) > 0 ? self.matrix.groupType.exists(v, v == 'share') : (has(self.consumer) && has(self.consumer.groupType) ? [self.consumer.groupType] : []).exists(v, v == 'share')))",message="unsupported: consumer client java has no share groups (KIP-932): the JVM worker (workers/jvm) has no share consumer (KafkaShareConsumer) yet"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'java') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'java')) && (has(self.matrix) && has(self.matrix.payloadCompression) && size(self.matrix.payloadCompression) > 0 ? self.matrix.payloadCompression.exists(v, v != 'none') : (has(self.payload) && has(self.payload.compression) ? [self.payload.compression] : []).exists(v, v != 'none')))",message="unsupported: client java has no payload compression: the JVM worker (workers/jvm) does not compress payloads itself yet (batch compression is the client's compression.type)"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'java') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'java')) && (has(self.matrix) && has(self.matrix.payloadCompression) && size(self.matrix.payloadCompression) > 0 ? self.matrix.payloadCompression.exists(v, v != 'none') : (has(self.payload) && has(self.payload.compression) ? [self.payload.compression] : []).exists(v, v != 'none')))",message="unsupported: consumer client java has no payload compression: the JVM worker (workers/jvm) does not compress payloads itself yet (batch compression is the client's compression.type)"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'sarama') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'sarama')) && self.codecs.exists(k, !(k in ['json', 'avro', 'protobuf', 'msgpack', 'raw', 'thrift-binary', 'thrift-compact', 'capnproto', 'capnproto-packed', 'flatbuffers', 'gob', 'cbor', 'avro/hamba', 'msgpack/msgp', 'protobuf/vtproto', 'json/goccy', 'avro/registry', 'protobuf/registry', 'json/registry'])))",message="unsupported: client sarama has only the codecs json, avro, protobuf, msgpack, raw, thrift-binary, thrift-compact, capnproto, capnproto-packed, flatbuffers, gob, cbor, avro/hamba, msgpack/msgp, protobuf/vtproto, json/goccy, avro/registry, protobuf/registry, json/registry: the go worker (cmd/worker) has no other"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'sarama') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'sarama')) && self.codecs.exists(k, !(k in ['json', 'avro', 'protobuf', 'msgpack', 'raw', 'thrift-binary', 'thrift-compact', 'capnproto', 'capnproto-packed', 'flatbuffers', 'gob', 'cbor', 'avro/hamba', 'msgpack/msgp', 'protobuf/vtproto', 'json/goccy', 'avro/registry', 'protobuf/registry', 'json/registry'])))",message="unsupported: consumer client sarama has only the codecs json, avro, protobuf, msgpack, raw, thrift-binary, thrift-compact, capnproto, capnproto-packed, flatbuffers, gob, cbor, avro/hamba, msgpack/msgp, protobuf/vtproto, json/goccy, avro/registry, protobuf/registry, json/registry: the go worker (cmd/worker) has no other"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'franz-go') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'franz-go')) && self.codecs.exists(k, !(k in ['json', 'avro', 'protobuf', 'msgpack', 'raw', 'thrift-binary', 'thrift-compact', 'capnproto', 'capnproto-packed', 'flatbuffers', 'gob', 'cbor', 'avro/hamba', 'msgpack/msgp', 'protobuf/vtproto', 'json/goccy', 'avro/registry', 'protobuf/registry', 'json/registry'])))",message="unsupported: client franz-go has only the codecs json, avro, protobuf, msgpack, raw, thrift-binary, thrift-compact, capnproto, capnproto-packed, flatbuffers, gob, cbor, avro/hamba, msgpack/msgp, protobuf/vtproto, json/goccy, avro/registry, protobuf/registry, json/registry: the go worker (cmd/worker) has no other"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'franz-go') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'franz-go')) && self.codecs.exists(k, !(k in ['json', 'avro', 'protobuf', 'msgpack', 'raw', 'thrift-binary', 'thrift-compact', 'capnproto', 'capnproto-packed', 'flatbuffers', 'gob', 'cbor', 'avro/hamba', 'msgpack/msgp', 'protobuf/vtproto', 'json/goccy', 'avro/registry', 'protobuf/registry', 'json/registry'])))",message="unsupported: consumer client franz-go has only the codecs json, avro, protobuf, msgpack, raw, thrift-binary, thrift-compact, capnproto, capnproto-packed, flatbuffers, gob, cbor, avro/hamba, msgpack/msgp, protobuf/vtproto, json/goccy, avro/registry, protobuf/registry, json/registry: the go worker (cmd/worker) has no other"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'librdkafka') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'librdkafka')) && self.codecs.exists(k, !(k in ['json', 'avro', 'protobuf', 'msgpack', 'raw', 'thrift-binary', 'thrift-compact', 'capnproto', 'capnproto-packed', 'flatbuffers', 'gob', 'cbor', 'avro/hamba', 'msgpack/msgp', 'protobuf/vtproto', 'json/goccy', 'avro/registry', 'protobuf/registry', 'json/registry'])))",message="unsupported: client librdkafka has only the codecs json, avro, protobuf, msgpack, raw, thrift-binary, thrift-compact, capnproto, capnproto-packed, flatbuffers, gob, cbor, avro/hamba, msgpack/msgp, protobuf/vtproto, json/goccy, avro/registry, protobuf/registry, json/registry: the go worker (cmd/worker) has no other"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'librdkafka') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'librdkafka')) && self.codecs.exists(k, !(k in ['json', 'avro', 'protobuf', 'msgpack', 'raw', 'thrift-binary', 'thrift-compact', 'capnproto', 'capnproto-packed', 'flatbuffers', 'gob', 'cbor', 'avro/hamba', 'msgpack/msgp', 'protobuf/vtproto', 'json/goccy', 'avro/registry', 'protobuf/registry', 'json/registry'])))",message="unsupported: consumer client librdkafka has only the codecs json, avro, protobuf, msgpack, raw, thrift-binary, thrift-compact, capnproto, capnproto-packed, flatbuffers, gob, cbor, avro/hamba, msgpack/msgp, protobuf/vtproto, json/goccy, avro/registry, protobuf/registry, json/registry: the go worker (cmd/worker) has no other"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'java') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'java')) && self.codecs.exists(k, !(k in ['json', 'avro', 'avro/specific', 'protobuf', 'msgpack', 'raw', 'cbor', 'flatbuffers', 'thrift-binary', 'thrift-compact', 'java-serialization', 'kryo', 'kryo/unsafe', 'fory', 'avro/registry', 'protobuf/registry', 'json/registry'])))",message="unsupported: client java has only the codecs json, avro, avro/specific, protobuf, msgpack, raw, cbor, flatbuffers, thrift-binary, thrift-compact, java-serialization, kryo, kryo/unsafe, fory, avro/registry, protobuf/registry, json/registry: the jvm worker (workers/jvm) has no other"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'java') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'java')) && self.codecs.exists(k, !(k in ['json', 'avro', 'avro/specific', 'protobuf', 'msgpack', 'raw', 'cbor', 'flatbuffers', 'thrift-binary', 'thrift-compact', 'java-serialization', 'kryo', 'kryo/unsafe', 'fory', 'avro/registry', 'protobuf/registry', 'json/registry'])))",message="unsupported: consumer client java has only the codecs json, avro, avro/specific, protobuf, msgpack, raw, cbor, flatbuffers, thrift-binary, thrift-compact, java-serialization, kryo, kryo/unsafe, fory, avro/registry, protobuf/registry, json/registry: the jvm worker (workers/jvm) has no other"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'java') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'java')) && (has(self.faults)))",message="unsupported: client java cannot run fault scenarios: the jvm worker (workers/jvm) has none yet"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'java') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'java')) && (has(self.faults)))",message="unsupported: consumer client java cannot run fault scenarios: the jvm worker (workers/jvm) has none yet"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'java') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'java')) && (has(self.rate) && has(self.rate.search)))",message="unsupported: client java cannot run rate.search: the jvm worker (workers/jvm) has none yet"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'java') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'java')) && (has(self.rate) && has(self.rate.search)))",message="unsupported: consumer client java cannot run rate.search: the jvm worker (workers/jvm) has none yet"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'java') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'java')) && (has(self.payload.source)))",message="unsupported: client java cannot run payload.source (the user's own records): the jvm worker (workers/jvm) has none yet"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'java') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'java')) && (has(self.payload.source)))",message="unsupported: consumer client java cannot run payload.source (the user's own records): the jvm worker (workers/jvm) has none yet"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'java') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'java')) && (has(self.topic) && has(self.topic.name)))",message="unsupported: client java cannot run topic.name (an existing topic): the jvm worker (workers/jvm) has none yet"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'java') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'java')) && (has(self.topic) && has(self.topic.name)))",message="unsupported: consumer client java cannot run topic.name (an existing topic): the jvm worker (workers/jvm) has none yet"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'java') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'java')) && ((has(self.consumer) && has(self.consumer.groupType) && self.consumer.groupType == 'share') || (has(self.matrix) && has(self.matrix.groupType) && self.matrix.groupType.exists(v, v == 'share'))))",message="unsupported: client java cannot run share groups' producers (it waits for a consumer group): the jvm worker (workers/jvm) has none yet"
// +kubebuilder:validation:XValidation:rule="!(!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0) || (has(self.consumer) && has(self.consumer.client))) && (has(self.matrix) && has(self.matrix.client) && size(self.matrix.client) > 0 ? self.matrix.client.exists(v, v == 'java') : (has(self.client) ? [self.client] : ['sarama']).exists(v, v == 'java')) && (has(self.consumer) && has(self.consumer.commit) && self.consumer.commit == 'eachRecord'))",message="unsupported: client java cannot run consumer.commit eachRecord: the jvm worker (workers/jvm) has none yet"
// +kubebuilder:validation:XValidation:rule="!((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0 ? self.matrix.consumerClient.exists(v, v == 'java') : (has(self.consumer) && has(self.consumer.client) ? [self.consumer.client] : []).exists(v, v == 'java')) && (has(self.consumer) && has(self.consumer.commit) && self.consumer.commit == 'eachRecord'))",message="unsupported: consumer client java cannot run consumer.commit eachRecord: the jvm worker (workers/jvm) has none yet"
// +kubebuilder:validation:XValidation:rule="!has(self.payload.source) || !self.codecs.exists(c, c == 'json/registry') || self.payload.source.format == 'json-schema'",message="codec json/registry with payload.source registers its JSON Schema (format: json-schema)"
// +kubebuilder:validation:XValidation:rule="!has(self.payload.source) || !self.codecs.exists(c, c == 'avro') || self.payload.source.format == 'avro'",message="codec avro with payload.source needs an Avro schema (format: avro)"
// +kubebuilder:validation:XValidation:rule="!has(self.payload.source) || !self.codecs.exists(c, c == 'protobuf') || self.payload.source.format == 'protobuf'",message="codec protobuf with payload.source needs a .proto (format: protobuf)"
type ExperimentSpec struct {
	// Codecs to compare; each is a separate trial.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=24
	// +listType=set
	Codecs []trial.Codec `json:"codecs"`

	// Payload is the record schema and its sizes.
	Payload PayloadSpec `json:"payload"`

	// Producer holds the base producer settings; the matrix overrides them per trial.
	// +kubebuilder:default={}
	// +optional
	Producer ProducerSettings `json:"producer,omitempty"`

	// Client is the Kafka client library of the producers and consumers (the
	// enum lists them). Default sarama. Where their settings differ in meaning is
	// in docs/producer-settings.md and in each trial result's effectiveSettings.
	// +kubebuilder:default=sarama
	// +optional
	Client trial.Client `json:"client,omitempty"`

	// Consumer holds the consumers' fetch and socket settings.
	// +kubebuilder:default={}
	// +optional
	Consumer ConsumerSettings `json:"consumer,omitempty"`

	// Matrix sweeps producer settings: every combination of the listed values becomes a
	// trial (times codecs times sizes).
	// +optional
	Matrix *Matrix `json:"matrix,omitempty"`

	// Mode is batch (asynchronous) or single (one record in flight). Default batch.
	// +kubebuilder:default=batch
	// +optional
	Mode trial.Mode `json:"mode,omitempty"`

	// Records is the number of measured records each producer sends per trial
	// (warmup records come on top). Exactly one of records and durationSeconds is set.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1099511627776
	// +optional
	Records *int64 `json:"records,omitempty"`

	// DurationSeconds is the length of each trial's measured window.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	// +optional
	DurationSeconds *int32 `json:"durationSeconds,omitempty"`

	// Warmup is sent before the measured window and excluded from every metric except
	// delivery completeness.
	// +optional
	Warmup trial.Warmup `json:"warmup,omitempty"`

	// Rate is the target send rate per producer; unset means as fast as possible.
	// +optional
	Rate Rate `json:"rate,omitempty"`

	// IntervalSeconds is the length of the intervals each trial result reports
	// throughput, latency percentiles and consumer backlog for. Long trials get
	// longer intervals (doubled until at most 60 remain). Default 10.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	// +optional
	IntervalSeconds int32 `json:"intervalSeconds,omitempty"`

	// Producers is the number of producer workers per trial. Default 1.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	Producers int32 `json:"producers,omitempty"`

	// Consumers is the number of consumers in the trial's consumer group. Default 1.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	Consumers int32 `json:"consumers,omitempty"`

	// Topic shapes the per-trial topic.
	// +kubebuilder:default={}
	// +optional
	Topic TopicSpec `json:"topic,omitempty"`

	// Seed makes payload generation reproducible; any value, 0 included. Default 1.
	// +kubebuilder:default=1
	// +optional
	Seed *int64 `json:"seed,omitempty"`

	// PoolSize is the number of distinct records each producer pre-builds and cycles
	// through. Default 1024.
	// +kubebuilder:default=1024
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1048576
	// +optional
	PoolSize int32 `json:"poolSize,omitempty"`

	// Repetitions runs every trial this many times, each on a fresh topic,
	// interleaved: every trial once in an order shuffled by seed, then again in
	// another, so drift over the experiment spreads over all trials. The result
	// reports each figure as the median over repetitions with a confidence
	// interval at its stated level (6 reach 95 %). Telling trials apart takes
	// more than significance alone: at 3 % noise a true 5 % difference is found by
	// 5 repetitions each about half the time, by 10 nine times in ten, and a table
	// corrected over many trials needs more; serdebench validate states the
	// smallest difference the spec can find (docs/measurement.md). Default 1.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=20
	// +optional
	Repetitions int32 `json:"repetitions,omitempty"`

	// RepeatUntil keeps adding rounds of repetitions beyond Repetitions (then the
	// fewest) until every trial's chosen metrics are known closely enough, or
	// MaxRepetitions rounds ran. The rule is accounted for: stopping when the
	// intervals look narrow favours samples that look tight, so the rule checks the
	// 98 % interval and the result states the 95 % one, which then covers 95 % of
	// the time within the simulation's error (94.9 % at worst; docs/measurement.md).
	// +optional
	RepeatUntil *RepeatUntil `json:"repeatUntil,omitempty"`

	// Compare says what the result's table compares every trial with.
	// +optional
	Compare *CompareSpec `json:"compare,omitempty"`

	// Objective is what the result's recommendation optimizes, under which
	// constraints. Default: the Pareto front over records/s, end-to-end p99, bytes
	// per record and worker CPU per record, and of it the highest records/s.
	// +optional
	Objective *Objective `json:"objective,omitempty"`

	// Faults are the conditions to compare: each scenario is a matrix dimension's
	// value, so every codec and setting runs under each (docs/faults.md).
	// +optional
	Faults *Faults `json:"faults,omitempty"`
}

// Faults lists fault scenarios; each trial runs under one of them, or none.
type Faults struct {
	// Baseline also runs every combination without a fault: the reference the
	// faulted trials are compared with.
	// +kubebuilder:default=true
	// +optional
	Baseline *bool `json:"baseline,omitempty"`
	// Scenarios are the faults, one per trial.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +listType=map
	// +listMapKey=name
	Scenarios []trial.Fault `json:"scenarios"`
	// Recovery is the band a faulted trial must come back to for its result's
	// recovery time.
	// +kubebuilder:default={}
	// +optional
	Recovery trial.Recovery `json:"recovery,omitempty"`
}

// Count is how many trials each combination of the other dimensions becomes.
func (f *Faults) Count() int {
	if f == nil {
		return 1
	}
	n := len(f.Scenarios)
	if f.Baseline == nil || *f.Baseline {
		n++
	}
	return max(n, 1)
}

// Variants are the faults each combination runs under, in order: nil (the
// baseline) first, then each scenario.
func (f *Faults) Variants() []*trial.Fault {
	if f == nil {
		return []*trial.Fault{nil}
	}
	var v []*trial.Fault
	if f.Baseline == nil || *f.Baseline {
		v = append(v, nil)
	}
	for i := range f.Scenarios {
		v = append(v, &f.Scenarios[i])
	}
	if len(v) == 0 {
		v = append(v, nil)
	}
	return v
}

// PayloadSpec selects the records: a built-in schema at chosen sizes, or the user's
// own schema and sample records (source).
// +kubebuilder:validation:XValidation:rule="has(self.schema) != has(self.source)",message="exactly one of payload.schema and payload.source must be set"
// +kubebuilder:validation:XValidation:rule="!has(self.schema) || has(self.sizesBytes)",message="payload.schema needs sizesBytes"
// +kubebuilder:validation:XValidation:rule="!has(self.source) || !has(self.sizesBytes)",message="payload.source records have their own sizes: leave sizesBytes unset"
// +kubebuilder:validation:XValidation:rule="!has(self.schema) || !has(self.sizesBytes) || !(self.schema in {'business-record': 960, 'bytes': 2, 'complex': 64, 'nested': 144, 'simple': 84}) || self.sizesBytes.all(s, s >= {'business-record': 960, 'bytes': 2, 'complex': 64, 'nested': 144, 'simple': 84}[self.schema])",message="payload.sizesBytes: a size is below its schema's minimum (business-record 960 B, bytes 2 B, complex 64 B, nested 144 B, simple 84 B): the record's fields alone take about that much"
type PayloadSpec struct {
	// Schema is a built-in payload schema: business-record, simple, complex or
	// nested; or bytes, an opaque record of exactly the size (a JSON string of
	// random capital letters, as Kafka's ProducerPerformance sends) down to 2 B, for
	// the raw codec only.
	// +kubebuilder:validation:Enum=business-record;simple;complex;nested;bytes
	// +optional
	Schema string `json:"schema,omitempty"`

	// SizesBytes are target sizes of one record's JSON encoding; each is a trial.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:Minimum=2
	// +kubebuilder:validation:items:Maximum=1048576
	// +listType=set
	// +optional
	SizesBytes []int32 `json:"sizesBytes,omitempty"`

	// Source is the user's own schema and sample records, sent in turn. Only codecs
	// that work from a schema at run time apply (json, json/goccy, avro with an Avro
	// schema, protobuf with a .proto, msgpack, cbor, raw); the others need code
	// generated from the schema. Every sample is checked against the schema and
	// round-tripped through each codec before a trial runs.
	// +optional
	Source *PayloadSource `json:"source,omitempty"`

	// Compression compresses each encoded value on its own before it is sent and
	// decompresses it before it is decoded: none, deflate, zstd, lz4, snappy or xz.
	// Separate from producer.compression (Kafka's batch compression); both can be
	// swept (matrix.payloadCompression). Default none.
	// +kubebuilder:default=none
	// +optional
	Compression trial.PayloadCompression `json:"compression,omitempty"`

	// Headers is the serdebench header set each record carries: full (five
	// headers, 56 B of keys and values, that any reader can decode) or compact
	// (one header with only what the trial's consumers need, 16 to 19 B with one
	// producer). Each trial result reports the header bytes per record beside
	// the value's. Default full.
	// +kubebuilder:default=full
	// +optional
	Headers trial.Headers `json:"headers,omitempty"`
}

// PayloadSource is a schema plus a JSON-lines file of sample records (one JSON object
// per line, in plain JSON: a union's value without a type wrapper).
// +kubebuilder:validation:XValidation:rule="has(self.configMap) != (has(self.schemaPath) || has(self.samplesPath))",message="payload.source needs either configMap (in a cluster) or schemaPath and samplesPath (serdebench run)"
// +kubebuilder:validation:XValidation:rule="has(self.schemaPath) == has(self.samplesPath)",message="payload.source.schemaPath and samplesPath go together"
type PayloadSource struct {
	// Format is the schema's: avro (.avsc), protobuf (.proto) or json-schema.
	// +kubebuilder:validation:Enum=avro;protobuf;json-schema
	Format string `json:"format"`

	// Message is the protobuf message of each sample, needed when the .proto defines
	// more than one top-level message.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Message string `json:"message,omitempty"`

	// ConfigMap holds the schema and the samples, in the experiment's namespace. The
	// operator reads it before the first trial and mounts it into the workers.
	// +optional
	ConfigMap *SourceConfigMap `json:"configMap,omitempty"`

	// SchemaPath and SamplesPath are files for serdebench run, relative to the
	// experiment file.
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	SchemaPath string `json:"schemaPath,omitempty"`
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	SamplesPath string `json:"samplesPath,omitempty"`
}

// SourceConfigMap names a ConfigMap and the keys of its schema and samples.
type SourceConfigMap struct {
	// Name of the ConfigMap.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// SchemaKey is the key holding the schema. Default schema.
	// +kubebuilder:default=schema
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +optional
	SchemaKey string `json:"schemaKey,omitempty"`
	// SamplesKey is the key holding the samples. Default samples.jsonl.
	// +kubebuilder:default=samples.jsonl
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +optional
	SamplesKey string `json:"samplesKey,omitempty"`
}

// ConsumerSettings are the consumers' fetch and socket settings, with the Java
// client's names and defaults (docs/measurement.md derives how they shape
// end-to-end latency).
// +kubebuilder:validation:XValidation:rule="!has(self.groupType) || self.groupType != 'share' || !has(self.groupProtocol) || self.groupProtocol != 'consumer'",message="a share group has its own protocol (KIP-932's share heartbeats): groupProtocol applies to consumer groups, leave it classic"
// +kubebuilder:validation:XValidation:rule="!has(self.groupType) || self.groupType != 'share' || !has(self.commit) || self.commit != 'eachRecord'",message="a share group acknowledges records instead of committing offsets: for acknowledgements awaited before each poll set consumer.share.acknowledgement: explicit, not consumer.commit: eachRecord"
type ConsumerSettings struct {
	// FetchMinBytes is how much data a fetch waits for at the broker before it
	// returns (Java fetch.min.bytes). Default 1: a fetch returns as soon as any record
	// is there.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=67108864
	// +optional
	FetchMinBytes *int32 `json:"fetchMinBytes,omitempty"`

	// FetchMaxWaitMs is how long the broker holds a fetch that has less than
	// fetchMinBytes (Java fetch.max.wait.ms). Default 500; at least 10, franz-go's
	// lower bound.
	// +kubebuilder:default=500
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=60000
	// +optional
	FetchMaxWaitMs *int32 `json:"fetchMaxWaitMs,omitempty"`

	// MaxPartitionFetchBytes caps one partition's data in a fetch response (Java
	// max.partition.fetch.bytes). Default 1048576.
	// +kubebuilder:default=1048576
	// +kubebuilder:validation:Minimum=1024
	// +kubebuilder:validation:Maximum=67108864
	// +optional
	MaxPartitionFetchBytes *int32 `json:"maxPartitionFetchBytes,omitempty"`

	// ReceiveBufferBytes is the consumer sockets' receive buffer (Java
	// receive.buffer.bytes, default 65536); -1 leaves it to the operating system,
	// which autotunes it. Default -1.
	// +kubebuilder:default=-1
	// +kubebuilder:validation:Minimum=-1
	// +kubebuilder:validation:Maximum=67108864
	// +kubebuilder:validation:XValidation:rule="self == -1 || self >= 1024",message="a socket buffer is -1 (the OS's) or at least 1024 bytes"
	// +optional
	ReceiveBufferBytes *int32 `json:"receiveBufferBytes,omitempty"`

	// SendBufferBytes is the consumer sockets' send buffer (Java send.buffer.bytes,
	// default 131072); -1 leaves it to the operating system. Default -1.
	// +kubebuilder:default=-1
	// +kubebuilder:validation:Minimum=-1
	// +kubebuilder:validation:Maximum=67108864
	// +kubebuilder:validation:XValidation:rule="self == -1 || self >= 1024",message="a socket buffer is -1 (the OS's) or at least 1024 bytes"
	// +optional
	SendBufferBytes *int32 `json:"sendBufferBytes,omitempty"`

	// Commit is when consumers commit: interval (every fetched record handed
	// over at once, offsets committed in the background, Java's auto commit) or
	// eachRecord (poll one record, process it, commit its offset and wait for the
	// answer before the next: Java's max.poll.records=1 and commitSync(), the
	// 2024 thesis's "one by one" consumer). Not the producer's mode: single,
	// which waits for each acknowledgement instead. Default interval.
	// +kubebuilder:default=interval
	// +optional
	Commit trial.Commit `json:"commit,omitempty"`

	// Isolation is which records consumers read (Java's isolation.level):
	// readUncommitted, every record as soon as it is written, or readCommitted,
	// a transaction's records once it has committed and never an aborted one's
	// (what a transactional producer's exactly-once delivery is measured
	// against; its end-to-end latency includes waiting for the commit). The
	// matrix sweeps it too (matrix.isolation). Default readUncommitted, Java's.
	// +kubebuilder:default=readUncommitted
	// +optional
	Isolation trial.Isolation `json:"isolation,omitempty"`

	// Client is the consumers' Kafka client when it is not the producers'
	// (spec.client, or the matrix's): Java producers and franz-go consumers, say,
	// one runtime writing and the other reading. The matrix sweeps it too
	// (matrix.consumerClient). Unset: the producers' client, whichever the trial
	// has (so it has no default of its own).
	// +optional
	Client trial.Client `json:"client,omitempty"`

	// GroupProtocol is the consumer group protocol the consumers join with
	// (Java's group.protocol): classic, the members' join and sync rounds with
	// every member stopping during a rebalance, or consumer, KIP-848's
	// broker-driven incremental protocol (GA in Kafka 4.0). Not every client has
	// the consumer protocol: docs/producer-settings.md, "What each client
	// supports"; admission refuses the others. The matrix sweeps it too
	// (matrix.groupProtocol). Default classic, Java's.
	// +kubebuilder:default=classic
	// +optional
	GroupProtocol trial.GroupProtocol `json:"groupProtocol,omitempty"`

	// GroupType is the kind of group the consumers form: consumer, a consumer
	// group (each partition read by one member, which commits its offset), or
	// share, a share group (KIP-932, "queues for Kafka", GA in Kafka 4.2: the
	// broker hands any member records of any partition and each is acknowledged
	// one by one; a record released, or held past its lock, is delivered again,
	// so delivery is at least once and duplicates are counted, not failures).
	// Only franz-go has share groups; admission refuses the others. The matrix
	// sweeps it too (matrix.groupType). Default consumer.
	// +kubebuilder:default=consumer
	// +optional
	GroupType trial.GroupType `json:"groupType,omitempty"`

	// Share are the share group's settings (groupType share).
	// +optional
	Share *ShareSpec `json:"share,omitempty"`
}

// ShareSpec are a share group's settings. serdebench sets the group's configs
// (share.auto.offset.reset earliest, share.delivery.count.limit and
// share.isolation.level from consumer.isolation) before its consumers join.
type ShareSpec struct {
	// Acknowledgement is how consumers acknowledge records (Java's
	// share.acknowledgement.mode): implicit accepts a poll's records when the next
	// poll begins, the acknowledgements riding on the next share fetch; explicit
	// acknowledges each record as it is processed and waits for the broker's
	// answer before polling again (Java's acknowledge and commitSync). Default
	// implicit, Java's.
	// +kubebuilder:default=implicit
	// +optional
	Acknowledgement trial.ShareAcknowledgement `json:"acknowledgement,omitempty"`

	// DeliveryCountLimit is the group's share.delivery.count.limit: how many
	// times a record is delivered before the broker archives it unaccepted.
	// Kafka's bounds, 2 to 10 (a broker may narrow them); a per-group limit needs
	// Kafka 4.3+ (KIP-1240: on 4.2 only the default runs, with the broker's
	// group.share.delivery.count.limit). Default 5, Kafka's.
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=10
	// +optional
	DeliveryCountLimit *int32 `json:"deliveryCountLimit,omitempty"`

	// ReleaseOneIn makes one record in this many (by its producer's sequence
	// number on its partition) fail processing on every delivery: the consumer
	// releases it, as a consumer does whose processing failed, so the broker
	// delivers it again until deliveryCountLimit archives it. What redeliveries cost, measured. Default 0:
	// every record is accepted.
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	// +optional
	ReleaseOneIn *int32 `json:"releaseOneIn,omitempty"`
}

// Rate shapes the send schedule.
type Rate struct {
	// RecordsPerSecond per producer. Unset or 0 is a closed loop (as fast as possible);
	// a positive value is an open loop: record i is due at start + i/rate and its
	// latency is measured from that intended time.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000000
	// +optional
	RecordsPerSecond int64 `json:"recordsPerSecond,omitempty"`

	// Search finds the maximum sustainable rate: each producer starts at
	// recordsPerSecond and raises its rate step by step while latency stays
	// bounded; the result names the highest step every producer sustained.
	// +optional
	Search *trial.RateSearch `json:"search,omitempty"`
}

// TopicSpec shapes each trial's topic.
// +kubebuilder:validation:XValidation:rule="!has(self.name) || !has(self.config)",message="topic.config cannot be applied to an existing topic (topic.name)"
type TopicSpec struct {
	// Name runs every trial on this existing topic instead of a fresh one per trial.
	// serdebench never creates, changes or deletes it; partitions must match its
	// partition count. Trials tell their own records apart (a run identifier in
	// every record's headers) and start reading at the topic's end, so other
	// traffic and earlier trials do not count.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=249
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9._-]+$`
	// +optional
	Name string `json:"name,omitempty"`
	// Partitions per topic. Default 3.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1024
	// +optional
	Partitions int32 `json:"partitions,omitempty"`
	// Replicas is the replication factor. Default 1.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Config holds topic-level configuration entries (e.g. min.insync.replicas).
	// +optional
	Config map[string]string `json:"config,omitempty"`
}

// CompareSpec declares the comparisons of an experiment's table, before any data:
// a trial picked from the data (say the fastest) and then tested against the
// others is biased toward "different".
type CompareSpec struct {
	// Baseline selects the trial every other trial is compared with, by its
	// values: the first trial of the plan whose every named value matches, e.g.
	// {codec: json} or {codec: json, lingerMs: "100"}. Keys: codec, schema,
	// sizeBytes, fault (a scenario's name, or none) and the producer settings
	// (spec.producer's and the matrix's names: lingerMs, acks, client, ...); values
	// as written in the spec. An unknown key is refused at admission; values no
	// trial matches fail the experiment at its start (InvalidSpec) and serdebench
	// validate. Default: the plan's first trial.
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['codec', 'schema', 'sizeBytes', 'fault', 'batchSizeBytes', 'lingerMs', 'acks', 'compression', 'maxInFlight', 'mode', 'recordsPerSecond', 'client', 'consumerClient', 'payloadCompression', 'records', 'idempotent', 'sendBufferBytes', 'receiveBufferBytes', 'partitioner', 'transactions', 'isolation', 'groupProtocol', 'groupType'])",message="compare.baseline: a key is one of codec, schema, sizeBytes, fault, batchSizeBytes, lingerMs, acks, compression, maxInFlight, mode, recordsPerSecond, client, consumerClient, payloadCompression, records, idempotent, sendBufferBytes, receiveBufferBytes, partitioner, transactions, isolation, groupProtocol, groupType"
	// +kubebuilder:validation:MaxProperties=16
	// +optional
	Baseline map[string]string `json:"baseline,omitempty"`
}

// Objective is what a recommendation optimizes. Metrics are named as the result's
// statistics name them (recordsPerSecond, endToEndMicros.p99,
// serializedBytesPerRecord, resources.workerCPUNanosPerRecord, ...: docs/api.md),
// each in its own integer unit; which way is better is the metric's.
type Objective struct {
	// Optimize is the metric to make best (highest records/s, lowest latency, ...).
	// Default: none, the Pareto front. The names are the result's statistics'
	// (internal/report.Metrics; a test holds this list to it).
	// +kubebuilder:validation:Enum=recordsPerSecond;serializedBytesPerSecond;serializedBytesPerRecord;serializeNanosPerRecord;deserializeNanosPerRecord;serializeSharePermille;deserializeSharePermille;endToEndMicros.mean;endToEndMicros.p50;endToEndMicros.p99;endToEndMicros.p999;endToEndMicros.max;ackMicros.mean;ackMicros.p50;ackMicros.p99;resources.workerCPUNanosPerRecord;resources.recordsPerCPUSecond;resources.peakRSSBytes;resources.peakHeapBytes;resources.brokerCPUNanosPerRecord;lostRecords;duplicatedRecords;failedRecords
	// +optional
	Optimize string `json:"optimize,omitempty"`
	// Constraints every recommended trial must meet, on its median.
	// +kubebuilder:validation:MaxItems=8
	// +listType=atomic
	// +optional
	Constraints []Constraint `json:"constraints,omitempty"`
}

// Constraint bounds one metric's median, in the metric's unit.
// +kubebuilder:validation:XValidation:rule="has(self.atMost) != has(self.atLeast)",message="a constraint sets exactly one of atMost and atLeast"
type Constraint struct {
	// Metric is a statistics name, e.g. endToEndMicros.p99 (as optimize's).
	// +kubebuilder:validation:Enum=recordsPerSecond;serializedBytesPerSecond;serializedBytesPerRecord;serializeNanosPerRecord;deserializeNanosPerRecord;serializeSharePermille;deserializeSharePermille;endToEndMicros.mean;endToEndMicros.p50;endToEndMicros.p99;endToEndMicros.p999;endToEndMicros.max;ackMicros.mean;ackMicros.p50;ackMicros.p99;resources.workerCPUNanosPerRecord;resources.recordsPerCPUSecond;resources.peakRSSBytes;resources.peakHeapBytes;resources.brokerCPUNanosPerRecord;lostRecords;duplicatedRecords;failedRecords
	Metric string `json:"metric"`
	// AtMost is the largest acceptable median.
	// +optional
	AtMost *int64 `json:"atMost,omitempty"`
	// AtLeast is the smallest acceptable median.
	// +optional
	AtLeast *int64 `json:"atLeast,omitempty"`
}
