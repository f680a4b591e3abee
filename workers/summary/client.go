package summary

// ClientStats are a worker's Kafka client's own counts over its run, by the same
// names for both clients (docs/measurement.md maps them to the Java client's
// metrics). They cover everything the client sent or fetched — warmup records and
// end markers included, which it cannot tell apart — so they explain the
// trial's batching, not its measured window's numbers.
type ClientStats struct {
	// ProduceRequests is how many produce requests got a response (or, with
	// acks=0, were written); Batches how many partition batches they carried, with
	// BatchRecords records in BatchBytes as sent (compressed records plus the
	// 61-byte record batch header) and UncompressedBytes before compression
	// (franz-go only).
	ProduceRequests   int64 `json:"produceRequests,omitempty"`
	Batches           int64 `json:"batches,omitempty"`
	BatchRecords      int64 `json:"batchRecords,omitempty"`
	BatchBytes        int64 `json:"batchBytes,omitempty"`
	UncompressedBytes int64 `json:"uncompressedBytes,omitempty"`
	// CompressionRateSum adds each batch's compressed over uncompressed size
	// (Java's compression-rate), over CompressionRateCount batches.
	CompressionRateSum   float64 `json:"compressionRateSum,omitempty"`
	CompressionRateCount int64   `json:"compressionRateCount,omitempty"`
	// RequestLatencySumMicros and RequestLatencyMaxMicros are the produce
	// requests' times from being written to their response being read, over
	// RequestLatencyCount requests (sarama: every request of the producer's
	// client, metadata included).
	RequestLatencySumMicros int64 `json:"requestLatencySumMicros,omitempty"`
	RequestLatencyMaxMicros int64 `json:"requestLatencyMaxMicros,omitempty"`
	RequestLatencyCount     int64 `json:"requestLatencyCount,omitempty"`
	// InFlightMax is the most requests in flight to all brokers at once;
	// InFlightSum over InFlightSamples its mean, sampled every 100 ms
	// (librdkafka: at every statistics emission, 200 ms).
	InFlightMax     int64 `json:"inFlightMax,omitempty"`
	InFlightSum     int64 `json:"inFlightSum,omitempty"`
	InFlightSamples int64 `json:"inFlightSamples,omitempty"`
	// BufferedBytesMax and BufferedRecordsMax are the most the client held
	// unsent or unacknowledged (sampled as in-flight; franz-go and librdkafka: Java's
	// buffer.memory minus buffer-available-bytes).
	BufferedBytesMax   int64 `json:"bufferedBytesMax,omitempty"`
	BufferedRecordsMax int64 `json:"bufferedRecordsMax,omitempty"`
	// BufferedBytesSum and BufferedRecordsSum over InFlightSamples are their
	// means (franz-go and librdkafka).
	BufferedBytesSum   int64 `json:"bufferedBytesSum,omitempty"`
	BufferedRecordsSum int64 `json:"bufferedRecordsSum,omitempty"`

	// FetchRequests is how many fetch requests got a response, with FetchBytes
	// of responses and FetchRecords records in them (consumers).
	FetchRequests int64 `json:"fetchRequests,omitempty"`
	FetchBytes    int64 `json:"fetchBytes,omitempty"`
	FetchRecords  int64 `json:"fetchRecords,omitempty"`
	// FetchRequestRate is FetchRequests per second of the client's life (summed
	// over consumers: their rates add).
	FetchRequestRate float64 `json:"fetchRequestRate,omitempty"`
}

// Add sums o into s (maxima by their largest).
func (s *ClientStats) Add(o *ClientStats) {
	if o == nil {
		return
	}
	s.ProduceRequests += o.ProduceRequests
	s.Batches += o.Batches
	s.BatchRecords += o.BatchRecords
	s.BatchBytes += o.BatchBytes
	s.UncompressedBytes += o.UncompressedBytes
	s.CompressionRateSum += o.CompressionRateSum
	s.CompressionRateCount += o.CompressionRateCount
	s.RequestLatencySumMicros += o.RequestLatencySumMicros
	s.RequestLatencyMaxMicros = max(s.RequestLatencyMaxMicros, o.RequestLatencyMaxMicros)
	s.RequestLatencyCount += o.RequestLatencyCount
	s.InFlightMax = max(s.InFlightMax, o.InFlightMax)
	s.InFlightSum += o.InFlightSum
	s.InFlightSamples += o.InFlightSamples
	s.BufferedBytesMax = max(s.BufferedBytesMax, o.BufferedBytesMax)
	s.BufferedRecordsMax = max(s.BufferedRecordsMax, o.BufferedRecordsMax)
	s.BufferedBytesSum += o.BufferedBytesSum
	s.BufferedRecordsSum += o.BufferedRecordsSum
	s.FetchRequests += o.FetchRequests
	s.FetchBytes += o.FetchBytes
	s.FetchRecords += o.FetchRecords
	s.FetchRequestRate += o.FetchRequestRate
}

// ClientInternals are a trial's client statistics as the Java client names them
// (docs/measurement.md): per batch, per request, per fetch.
type ClientInternals struct {
	// BatchSizeAvgBytes (batch-size-avg): bytes per partition batch as sent;
	// BatchRecordsAvg: records per batch.
	BatchSizeAvgBytes float64 `json:"batchSizeAvgBytes"`
	BatchRecordsAvg   float64 `json:"batchRecordsAvg"`
	// RecordsPerRequestAvg (records-per-request-avg) and ProduceRequests.
	RecordsPerRequestAvg float64 `json:"recordsPerRequestAvg"`
	ProduceRequests      int64   `json:"produceRequests"`
	// CompressionRateAvg (compression-rate-avg): compressed over uncompressed
	// size, mean over batches (0: not known).
	CompressionRateAvg float64 `json:"compressionRateAvg,omitempty"`
	// RequestLatencyAvgMicros and RequestLatencyMaxMicros (request-latency-avg,
	// -max).
	RequestLatencyAvgMicros float64 `json:"requestLatencyAvgMicros"`
	RequestLatencyMaxMicros int64   `json:"requestLatencyMaxMicros"`
	// RecordQueueTimeAvgMicros (record-queue-time-avg) is estimated: the mean
	// time from a record's actual send to its acknowledgement, less the mean
	// request latency — what a record spent in the client before its request
	// went out (lingering, waiting for a slot in flight).
	RecordQueueTimeAvgMicros float64 `json:"recordQueueTimeAvgMicros"`
	// RequestsInFlightAvg and RequestsInFlightMax (requests-in-flight).
	RequestsInFlightAvg float64 `json:"requestsInFlightAvg"`
	RequestsInFlightMax int64   `json:"requestsInFlightMax"`
	// BufferedBytesMax and BufferedRecordsMax: the most held in the client
	// (franz-go; 0: not known).
	BufferedBytesMax   int64 `json:"bufferedBytesMax,omitempty"`
	BufferedRecordsMax int64 `json:"bufferedRecordsMax,omitempty"`
	// FetchRequestRate (fetch-rate) per second, all consumers,
	// FetchSizeAvgBytes (fetch-size-avg) and RecordsPerFetchAvg
	// (records-per-request-avg of the consumer).
	FetchRequestRate   float64 `json:"fetchRequestRate"`
	FetchSizeAvgBytes  float64 `json:"fetchSizeAvgBytes"`
	RecordsPerFetchAvg float64 `json:"recordsPerFetchAvg"`
	// Producer and Consumer are the summed counts they come from.
	Producer ClientStats `json:"producer"`
	Consumer ClientStats `json:"consumer"`
}

// internals derives a trial's client internals; ackFromSendMicros is the mean
// acknowledgement latency from the actual send.
func internals(p, c ClientStats, ackFromSendMicros float64) *ClientInternals {
	if p.ProduceRequests == 0 && c.FetchRequests == 0 {
		return nil
	}
	div := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	in := &ClientInternals{Producer: p, Consumer: c, ProduceRequests: p.ProduceRequests,
		BatchSizeAvgBytes: div(float64(p.BatchBytes), float64(p.Batches)), BatchRecordsAvg: div(float64(p.BatchRecords), float64(p.Batches)),
		RecordsPerRequestAvg:    div(float64(p.BatchRecords), float64(p.ProduceRequests)),
		CompressionRateAvg:      div(p.CompressionRateSum, float64(p.CompressionRateCount)),
		RequestLatencyAvgMicros: div(float64(p.RequestLatencySumMicros), float64(p.RequestLatencyCount)), RequestLatencyMaxMicros: p.RequestLatencyMaxMicros,
		RequestsInFlightAvg: div(float64(p.InFlightSum), float64(p.InFlightSamples)), RequestsInFlightMax: p.InFlightMax,
		BufferedBytesMax: p.BufferedBytesMax, BufferedRecordsMax: p.BufferedRecordsMax,
		FetchRequestRate: c.FetchRequestRate, FetchSizeAvgBytes: div(float64(c.FetchBytes), float64(c.FetchRequests)),
		RecordsPerFetchAvg: div(float64(c.FetchRecords), float64(c.FetchRequests))}
	in.RecordQueueTimeAvgMicros = max(0, ackFromSendMicros-in.RequestLatencyAvgMicros)
	return in
}
