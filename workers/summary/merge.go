package summary

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/usage"
)

// Result is the merged outcome of one trial. Every field name carries its unit;
// percentiles come from merged histograms.
type Result struct {
	Producers int `json:"producers"`
	Consumers int `json:"consumers"`

	// WindowSeconds is the producers' combined measured window: earliest start to
	// latest end.
	WindowSeconds float64 `json:"windowSeconds"`
	// Records acknowledged in the measured window, all producers.
	Records int64 `json:"records"`
	// RecordsPerSecond is Records / WindowSeconds.
	RecordsPerSecond float64 `json:"recordsPerSecond"`
	// SerializedMBPerSecond is encoded value bytes per second (10^6 B/s).
	SerializedMBPerSecond float64 `json:"serializedMBPerSecond"`
	// PayloadMBPerSecond is the logical (JSON-sized) payload rate (10^6 B/s).
	PayloadMBPerSecond float64 `json:"payloadMBPerSecond"`
	// SerializedBytesPerRecord is the mean encoded value size.
	SerializedBytesPerRecord float64 `json:"serializedBytesPerRecord"`
	// WindowStartSpreadMicros is how far apart the producers' measured windows
	// began (latest minus earliest start, each on its worker's clock; the
	// operator corrects them by the nodes' clock offsets). 0 with one producer.
	WindowStartSpreadMicros int64 `json:"windowStartSpreadMicros,omitempty"`
	// ProducerRatesSum is the sum of each producer's own rate (its records over
	// its own window): with windows that coincide, RecordsPerSecond (all records
	// over their union) equals it; windows that do not overlap make it larger.
	ProducerRatesSum float64 `json:"producerRatesSum,omitempty"`
	// Commits is the offset commits the consumers sent and waited for (commit
	// eachRecord).
	Commits int64 `json:"commits,omitempty"`
	// HeaderBytesPerRecord is the mean size of a record's serdebench headers, keys
	// and values: what a record carries besides its value.
	HeaderBytesPerRecord float64 `json:"headerBytesPerRecord,omitempty"`
	// PayloadBytesPerRecord is the mean JSON-encoded size.
	PayloadBytesPerRecord float64 `json:"payloadBytesPerRecord"`
	// Registry is what the schema registry cost (registry codecs only).
	Registry *RegistryCost `json:"registry,omitempty"`

	// SerializeMicrosPerRecord is the exact mean Marshal time.
	SerializeMicrosPerRecord float64 `json:"serializeMicrosPerRecord"`
	// DeserializeMicrosPerRecord is the exact mean Unmarshal time.
	DeserializeMicrosPerRecord float64 `json:"deserializeMicrosPerRecord"`
	// CompressedBytesPerRecord is the mean value size after payload compression (0:
	// no payload compression); SerializedBytesPerRecord is the size before it.
	CompressedBytesPerRecord float64 `json:"compressedBytesPerRecord,omitempty"`
	// CompressMicrosPerRecord and DecompressMicrosPerRecord are the exact mean times
	// to compress and decompress one value.
	CompressMicrosPerRecord   float64 `json:"compressMicrosPerRecord,omitempty"`
	DecompressMicrosPerRecord float64 `json:"decompressMicrosPerRecord,omitempty"`
	// SerializeSharePercent is the share of the producers' window spent in Marshal.
	SerializeSharePercent float64 `json:"serializeSharePercent"`
	// DeserializeSharePercent is the share of the consumers' window spent in Unmarshal.
	DeserializeSharePercent float64 `json:"deserializeSharePercent"`
	// ConsumerRecordsPerSecond is the consumers' receive rate over their window.
	ConsumerRecordsPerSecond float64 `json:"consumerRecordsPerSecond"`

	// Client are the Kafka clients' internals, by the Java client's names (nil:
	// summaries without them).
	Client *ClientInternals `json:"client,omitempty"`
	// Probe is the first producer's machine probe (nil: none measured it).
	Probe *Probe `json:"probe,omitempty"`
	// Usage is what the trial's processes spent in the measured window (nil: not
	// measured).
	Usage *Usage `json:"usage,omitempty"`
	// JITShares is, per role, the largest share of its own window that one worker's
	// JIT compilations took (usage.Window.JITSeconds over its Seconds; 0: no worker
	// of the role reported any, as a Go worker never does). Read from every
	// summary with a usage window, also where the trial's usage is unmeasured (a
	// Go side in `serdebench run`'s process); protocol's JITCompiling warning reads
	// it, after the merge, and it is not part of the result's JSON.
	JITShares JITShares `json:"-"`

	// ClientSettings are the first producer's client settings (every producer of a
	// trial has the same).
	ClientSettings map[string]string `json:"clientSettings,omitempty"`
	// lingerMicros is the first producer's linger (saturation).
	lingerMicros int64
	// latency are the merged end-to-end and acknowledgement histograms (Latency).
	latency map[string]*Histogram

	// EndToEnd is consume time minus intended send time, in microseconds.
	EndToEnd Percentiles `json:"endToEndMicros"`
	// FetchInterval is the time between a consumer's successive fetch responses with
	// records, in microseconds (franz-go consumers only; docs/measurement.md uses it
	// to predict end-to-end latency from acknowledgement latency).
	FetchInterval Percentiles `json:"fetchIntervalMicros"`
	// Ack is acknowledgement time minus intended send time, in microseconds.
	Ack Percentiles `json:"ackMicros"`
	// SendDelay is actual minus intended send time, in microseconds (0 in a closed loop).
	SendDelay Percentiles `json:"sendDelayMicros"`
	// Serialize and Deserialize are per-record codec times in nanoseconds.
	Serialize   Percentiles `json:"serializeNanos"`
	Deserialize Percentiles `json:"deserializeNanos"`
	// Compress and Decompress are per-value payload compression times in
	// nanoseconds (payload.compression only).
	Compress   Percentiles `json:"compressNanos"`
	Decompress Percentiles `json:"decompressNanos"`

	// Sent is records acknowledged by the brokers, warmup included, all producers
	// (with acks=0: written to the connection).
	Sent int64 `json:"sent"`
	// Failed is records whose send failed after the client's retries.
	Failed int64 `json:"failed"`
	// Delivered is distinct records received.
	Delivered int64 `json:"delivered"`
	// Lost is acknowledged records never received: the set difference acked ∖
	// received per producer and partition.
	Lost int64 `json:"lost"`
	// UnacknowledgedDelivered is records received that the producer never saw
	// acknowledged (failed or unanswered sends the broker stored anyway).
	UnacknowledgedDelivered int64 `json:"unacknowledgedDelivered"`
	// Duplicated is records received more than once (extra copies).
	Duplicated int64 `json:"duplicated"`
	// Transactions are transactional producers' transactions (nil: none).
	Transactions *Transactions `json:"transactions,omitempty"`
	// Stalls are the partitions' consumption stalls: a rebalance, a member
	// gone or paused (nil: none).
	Stalls *Stalls `json:"stalls,omitempty"`
	// Share are the share group's deliveries (nil: consumer groups).
	Share *Share `json:"share,omitempty"`
	// Errors is failed sends plus failed decodes.
	Errors int64 `json:"errors"`
	// Interrupted names the workers that stopped before the trial was complete; a
	// result with any is partial and fails the trial.
	Interrupted []string `json:"interrupted,omitempty"`
	// IntervalSeconds is the length of each of Intervals.
	IntervalSeconds int64 `json:"intervalSeconds,omitempty"`
	// Intervals cut the measured window into intervals: throughput, latency
	// percentiles and consumer backlog over time (at most MaxIntervals).
	Intervals []Interval `json:"intervals,omitempty"`
	// Warnings say what the numbers cannot be trusted for (clamped values, interrupts).
	Warnings []string `json:"warnings,omitempty"`

	// Phases split a faulted trial at its fault (SplitAtFault), in the model the
	// SerializationResult and the reports share.
	Phases *trial.Phases `json:"phases,omitempty"`

	// Search is a rate search's outcome (rate.search only; EvaluateSearch).
	Search *Search `json:"search,omitempty"`

	// The merged series and window, for IntervalsAtMost; the summaries, for
	// EvaluateSearch.
	producerSeries, consumerSeries      *Series
	windowStart, windowEnd, consumerEnd time.Time
	summaries                           []*Summary
}

// Percentiles of one merged histogram; the unit is in the enclosing field's name.
// Count is the number of values, Mean their mean, P<n> the n-th percentile (P999 the
// 99.9th) and Max the largest, within the histogram's 0.1% precision.
type Percentiles struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	P50   int64   `json:"p50"`
	P75   int64   `json:"p75"`
	P90   int64   `json:"p90"`
	P95   int64   `json:"p95"`
	P99   int64   `json:"p99"`
	P999  int64   `json:"p999"`
	P9999 int64   `json:"p9999"`
	Max   int64   `json:"max"`
}

func percentiles(h *Histogram) Percentiles {
	if h == nil || h.Count() == 0 {
		return Percentiles{}
	}
	return Percentiles{Count: h.Count(), Mean: h.Mean(), P50: h.Quantile(50), P75: h.Quantile(75), P90: h.Quantile(90),
		P95: h.Quantile(95), P99: h.Quantile(99), P999: h.Quantile(99.9), P9999: h.Quantile(99.99), Max: h.Max()}
}

// SaramaInFlightWarning says what sarama's producer cannot do (the calibration in
// docs/measurement.md measured it).
const SaramaInFlightWarning = "client sarama sends one produce request per partition at a time whatever maxInFlight says: " +
	"with network delay its acknowledgement latency grows by more than one round trip, small batches saturate it, and its " +
	"consumer's heartbeats and commits delay fetches on the same connection (docs/producer-settings.md; franz-go and librdkafka have neither limit)"

// SaramaCommitWarning says why sarama's consumers commit each record slowly.
const SaramaCommitWarning = "client sarama commits on the connection it fetches on, and holds it while a fetch waits at the broker: " +
	"with commit eachRecord a commit can wait up to consumer.fetchMaxWaitMs, which then bounds the consumer's rate " +
	"(the Java client, franz-go and librdkafka commit on a connection of their own)"

// Saturation thresholds: an open-loop trial's client is saturated when its
// requests in flight averaged at least SaturatedInFlightShare of their most, and
// records waited in it longer than batching explains: longer than linger.ms (at
// least SaturatedQueueFloorMicros), or for at least SaturatedQueueShare of their
// mean acknowledgement latency. A record waits at most linger.ms for its batch
// to fill; beyond that it waited for a request slot, which is what moved
// librdkafka's acknowledgement by more than the round trip in the calibration
// (its queue time grew by as much as its ack exceeded the round trip). Its
// rate slipped when records went out a mean SlippedSendDelayMicros or more after
// their intended send time.
const (
	SaturatedInFlightShare = 0.8
	SaturatedQueueShare    = 0.25
	// SaturatedQueueFloorMicros is the least queue time that counts beyond a
	// linger of 0 (single mode, or linger.ms 0): the client's own turnaround.
	SaturatedQueueFloorMicros = 1000
	SlippedSendDelayMicros    = 1000
)

// The saturation warnings begin with these, so tests and tools can tell them apart.
const (
	// SaturatedWarning opens the warning of a client whose request pipeline was full.
	SaturatedWarning = "client saturated"
	// SlippedWarning opens the warning of an open-loop trial whose producer fell
	// behind its schedule (a loaded machine can cause it at any rate).
	SlippedWarning = "open-loop rate slipped"
)

// Warned says whether one of warnings begins with opening (SaturatedWarning,
// SlippedWarning).
func Warned(warnings []string, opening string) bool {
	return slices.ContainsFunc(warnings, func(w string) bool { return strings.HasPrefix(w, opening) })
}

// saturation says when the client, not the format, set an open-loop trial's
// numbers (a closed loop fills the client by design: it measures the slowest
// stage). The calibration at 80 ms round trip saw librdkafka's acknowledgement
// p50 rise 23 ms beyond the round trip with 17.8 of 20 requests in flight and
// 26.6 ms of queue time (docs/measurement.md).
func saturation(r *Result) []string {
	if r.SendDelay.Max == 0 { // a closed loop: every record goes out when it is made
		return nil
	}
	var out []string
	queued := func(c *ClientInternals) bool {
		q := c.RecordQueueTimeAvgMicros
		return (r.Ack.Mean > 0 && q >= SaturatedQueueShare*r.Ack.Mean) ||
			q > float64(max(r.lingerMicros, SaturatedQueueFloorMicros))
	}
	if c := r.Client; c != nil && c.RequestsInFlightMax >= 2 && c.RequestsInFlightAvg >= SaturatedInFlightShare*float64(c.RequestsInFlightMax) && queued(c) {
		share := "no acknowledgement latency measured"
		if r.Ack.Mean > 0 {
			share = fmt.Sprintf("%.0f %% of the %.1f ms mean acknowledgement latency", 100*c.RecordQueueTimeAvgMicros/r.Ack.Mean, r.Ack.Mean/1e3)
		}
		out = append(out, fmt.Sprintf(SaturatedWarning+": requests in flight averaged %.1f of at most %d and records waited %.1f ms in the client "+
			"(linger %.0f ms; %s): the client's pipeline, not the format, set this trial's latency "+
			"(raise maxInFlight or batch more: docs/producer-settings.md)", c.RequestsInFlightAvg, c.RequestsInFlightMax,
			c.RecordQueueTimeAvgMicros/1e3, float64(max(r.lingerMicros, 0))/1e3, share))
	}
	if r.SendDelay.Mean >= SlippedSendDelayMicros {
		out = append(out, fmt.Sprintf(SlippedWarning+": records went out a mean %.1f ms (p99 %.1f ms) after their intended send time: "+
			"the producer could not keep the target rate, so the client or the machine, not the format, set this trial's numbers "+
			"(latency still counts from the intended time)%s", r.SendDelay.Mean/1e3, float64(r.SendDelay.P99)/1e3, txnSlip(r)))
	}
	return out
}

// UnionRateFloor is how far below ProducerRatesSum a duration-bounded trial's
// RecordsPerSecond (all records over the union of the producers' windows) can
// be, as a fraction of it: every window begins within startSpread of the
// earliest, and ends between its producer's scheduled stop (its start plus the
// duration) and its last acknowledgement, at most ackMax later; so each is at
// least union − 2·startSpread − ackMax long. Windows that begin together still
// end a drain apart, which is why the rate over their union is not exactly the
// sum of the parts.
func UnionRateFloor(union, startSpread, ackMax time.Duration) float64 {
	if union <= 0 {
		return 0
	}
	return max(0, 1-float64(2*startSpread+ackMax)/float64(union))
}

// RegistryCost is a trial's schema registry cost: the requests every worker's
// client sent, and the time each measured record spent on the registry's account
// beside its (de)serialization (its header: the schema id from the client's
// cache, the writer's schema looked up by id).
type RegistryCost struct {
	// Requests over the workers' whole runs (registrations, lookups, retries)
	// and RequestMillis their total time.
	Requests      int64   `json:"requests"`
	RequestMillis float64 `json:"requestMillis"`
	// SerializeLookupNanosPerRecord and DeserializeLookupNanosPerRecord are the
	// exact mean header times per measured record, producers' and consumers'.
	SerializeLookupNanosPerRecord   float64 `json:"serializeLookupNanosPerRecord"`
	DeserializeLookupNanosPerRecord float64 `json:"deserializeLookupNanosPerRecord"`
}

// lookups is one role's header time over the records of the workers that measured
// it apart from their codec time, and the workers that did not.
type lookups struct {
	nanos, records int64
	inCodec        []string
}

// addRegistry adds one worker's registry statistics to the trial's totals.
func addRegistry(c **RegistryCost, s *Summary, l *lookups) {
	if s.Registry == nil {
		return
	}
	if *c == nil {
		*c = &RegistryCost{}
	}
	(*c).Requests += s.Registry.Requests
	(*c).RequestMillis += float64(s.Registry.RequestNanos) / 1e6
	if s.Registry.LookupInCodec {
		l.inCodec = append(l.inCodec, s.Worker)
		return
	}
	l.nanos += s.Registry.LookupNanos
	l.records += s.Records
}

// perRecord is the role's mean header time per measured record of the workers that
// measured it; a warning names the others.
func (l lookups) perRecord(role, field string, warn func(string)) float64 {
	if len(l.inCodec) > 0 {
		warn(fmt.Sprintf("registry: %ss %s do the registry header inside their codec call (their serdes' own): their header time is in their "+
			"(de)serialize time, and %s is the other %ss' only (0 with none)", role, strings.Join(l.inCodec, ", "), field, role))
	}
	if l.records == 0 {
		return 0
	}
	return float64(l.nanos) / float64(l.records)
}

// Spread is the latest of ts minus the earliest.
func Spread(ts []time.Time) time.Duration {
	if len(ts) == 0 {
		return 0
	}
	lo, hi := ts[0], ts[0]
	for _, t := range ts[1:] {
		if t.Before(lo) {
			lo = t
		}
		if t.After(hi) {
			hi = t
		}
	}
	return hi.Sub(lo)
}

// Merge combines every worker summary of one trial.
func Merge(summaries []*Summary) (*Result, error) {
	r := &Result{summaries: summaries}
	hists := map[string]*Histogram{}
	var pStart, pEnd, cStart, cEnd time.Time
	var serBytes, payBytes, serNanos, deserNanos, consumed int64
	var compBytes, compNanos, decompNanos, hdrBytes int64
	var starts []time.Time
	type key struct{ producer, partition int }
	acked, failed, received, aborted, doubtful := map[key]Intervals{}, map[key]Intervals{}, map[key]Intervals{}, map[key]Intervals{}, map[key]Intervals{}
	var txnMeasured, txnRecords int64
	var firstAbort, firstAckErr string
	readCommitted := false
	var segs []Segment
	var owners []int
	producers := map[int]bool{}
	var totalReceived int64
	var prodUsage, consUsage *usage.Window
	var prodClient, consClient ClientStats
	var prodLookup, consLookup lookups
	unmeasured := false
	var pSeries, cSeries *Series
	mergeSeries := func(dst **Series, o *Series) {
		if o == nil {
			return
		}
		if *dst == nil {
			*dst = o.Clone()
			return
		}
		(*dst).Merge(o)
	}
	for _, s := range summaries {
		for name, h := range s.Histograms {
			if hists[name] == nil {
				hists[name] = newLike(name)
			}
			hists[name].Merge(h)
		}
		if s.Errors > 0 {
			r.Errors += s.Errors
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s %s: %d errors, first: %s", s.Role, s.Worker, s.Errors, s.FirstError))
		}
		if s.Interrupted {
			r.Interrupted = append(r.Interrupted, s.Role+" "+s.Worker)
		}
		switch s.Role {
		case RoleProducer:
			r.Producers++
			addUsage(&prodUsage, s.Usage, &unmeasured)
			r.JITShares.Producers = max(r.JITShares.Producers, s.Usage.JITShare())
			prodClient.Add(s.Client)
			addRegistry(&r.Registry, s, &prodLookup)
			if r.ClientSettings == nil {
				r.ClientSettings, r.lingerMicros = s.ClientSettings, s.LingerMicros
			}
			pStart, pEnd = widen(pStart, pEnd, s.WindowStart, s.WindowEnd)
			if !s.WindowStart.IsZero() {
				starts = append(starts, s.WindowStart)
				if w := s.WindowEnd.Sub(s.WindowStart).Seconds(); w > 0 {
					r.ProducerRatesSum += float64(s.Records) / w
				}
			}
			mergeSeries(&pSeries, s.Series)
			r.Records += s.Records
			serBytes += s.SerializedBytes
			hdrBytes += s.HeaderBytes
			payBytes += s.PayloadBytes
			serNanos += s.CodecNanos
			compBytes += s.CompressedBytes
			compNanos += s.CompressNanos
			var id int
			if _, err := fmt.Sscanf(s.Worker, "%d", &id); err != nil {
				return nil, fmt.Errorf("producer summary with non-numeric worker %q", s.Worker)
			}
			producers[id] = true
			for _, d := range s.Acked {
				k := key{id, d.Partition}
				acked[k] = append(acked[k], d.Intervals...)
			}
			for _, d := range s.Failed {
				k := key{id, d.Partition}
				failed[k] = append(failed[k], d.Intervals...)
			}
			for _, d := range s.Aborted {
				k := key{id, d.Partition}
				aborted[k] = append(aborted[k], d.Intervals...)
			}
			for _, d := range s.InDoubt {
				k := key{id, d.Partition}
				doubtful[k] = append(doubtful[k], d.Intervals...)
			}
			addTransactions(&r.Transactions, s.Transactions, &txnMeasured, &txnRecords, &firstAbort)
			if s.Unacknowledged > 0 {
				r.Warnings = append(r.Warnings, fmt.Sprintf("producer %s: %d records neither acknowledged nor failed when it stopped", s.Worker, s.Unacknowledged))
			}
		case RoleConsumer:
			r.Consumers++
			addUsage(&consUsage, s.Usage, &unmeasured)
			r.JITShares.Consumers = max(r.JITShares.Consumers, s.Usage.JITShare())
			consClient.Add(s.Client)
			addRegistry(&r.Registry, s, &consLookup)
			r.Commits += s.Commits
			cStart, cEnd = widen(cStart, cEnd, s.WindowStart, s.WindowEnd)
			mergeSeries(&cSeries, s.Series)
			deserNanos += s.CodecNanos
			decompNanos += s.CompressNanos
			consumed += s.Records
			readCommitted = readCommitted || s.ReadCommitted
			addShare(&r.Share, s.Share, &firstAckErr)
			for _, g := range s.Segments {
				segs, owners = append(segs, g), append(owners, r.Consumers)
			}
			for _, d := range s.Received {
				k := key{d.Producer, d.Partition}
				received[k] = append(received[k], d.Intervals...)
				totalReceived += d.Total
			}
		default:
			return nil, fmt.Errorf("summary with unknown role %q", s.Role)
		}
	}
	for k, ivs := range acked {
		r.Sent += ivs.Size()
		r.Lost += ivs.Minus(received[k]).Size()
	}
	for _, ivs := range failed {
		r.Failed += ivs.Size()
	}
	for k, ivs := range received {
		r.Delivered += ivs.Size()
		// A record of an aborted transaction was never meant to be delivered:
		// counted apart, not as delivered without an acknowledgement.
		r.UnacknowledgedDelivered += ivs.Minus(acked[k]).Minus(aborted[k]).Minus(doubtful[k]).Size()
		if r.Transactions != nil {
			r.Transactions.AbortedDelivered += ivs.Intersect(aborted[k]).Size()
			r.Transactions.InDoubtDelivered += ivs.Intersect(doubtful[k]).Size()
		}
		if !producers[k.producer] {
			r.Warnings = append(r.Warnings, fmt.Sprintf("received records from unknown producer %d partition %d", k.producer, k.partition))
		}
	}
	r.Duplicated = totalReceived - r.Delivered
	if r.Share != nil {
		r.Share.Ack = percentiles(hists[ShareAckMicros])
		if r.Share.Redelivered > 0 || r.Duplicated > 0 {
			r.Warnings = append(r.Warnings, shareWarning(r.Share, r.Duplicated))
		}
		if r.Share.AckErrors > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("share group: %d answers to acknowledgements (per partition) carried an error (first: %s): their records may be delivered again", r.Share.AckErrors, firstAckErr))
		}
	}
	if t := r.Transactions; t != nil {
		for _, ivs := range aborted {
			t.AbortedRecords += ivs.Size()
		}
		for _, ivs := range doubtful {
			t.InDoubtRecords += ivs.Size()
		}
		if t.InDoubt > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%d transactions (%d records) ended in doubt: their commit was sent and never answered; "+
				"consumers received %d of their records (with readCommitted: those committed)", t.InDoubt, t.InDoubtRecords, t.InDoubtDelivered))
		}
		if txnMeasured > 0 {
			t.RecordsPerTransaction = float64(txnRecords) / float64(txnMeasured)
		}
		t.Commit = percentiles(hists[CommitMicros])
		if t.Aborted > 0 {
			r.Warnings = append(r.Warnings, abortWarning(t, firstAbort))
		}
		if t.AbortedDelivered > 0 && readCommitted {
			// Exactly-once broken: what the isolation level promises not to happen.
			r.Errors += t.AbortedDelivered
			r.Warnings = append(r.Warnings, fmt.Sprintf("read-committed consumers received %d records of aborted transactions", t.AbortedDelivered))
		}
	}
	if !unmeasured && prodUsage != nil && consUsage != nil {
		r.Usage = &Usage{Producers: prodUsage, Consumers: consUsage, Scope: ScopeWorkers}
		r.Usage.derive(r.Records, consumed)
	}
	if len(r.Interrupted) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("stopped before the trial was complete: %s", strings.Join(r.Interrupted, ", ")))
	}
	if w := pEnd.Sub(pStart).Seconds(); w > 0 {
		r.WindowSeconds = w
		r.RecordsPerSecond = float64(r.Records) / w
		if r.Transactions != nil {
			r.Transactions.PerSecond = float64(txnMeasured) / w
		}
		r.SerializedMBPerSecond = float64(serBytes) / w / 1e6
		r.PayloadMBPerSecond = float64(payBytes) / w / 1e6
		r.SerializeSharePercent = 100 * float64(serNanos) / (w * 1e9 * float64(max(r.Producers, 1)))
	}
	if len(starts) > 1 {
		r.WindowStartSpreadMicros = Spread(starts).Microseconds()
	}
	if r.Records > 0 {
		r.SerializedBytesPerRecord = float64(serBytes) / float64(r.Records)
		r.PayloadBytesPerRecord = float64(payBytes) / float64(r.Records)
		r.HeaderBytesPerRecord = float64(hdrBytes) / float64(r.Records)
		r.SerializeMicrosPerRecord = float64(serNanos) / float64(r.Records) / 1e3
		r.CompressedBytesPerRecord = float64(compBytes) / float64(r.Records)
		r.CompressMicrosPerRecord = float64(compNanos) / float64(r.Records) / 1e3
	}
	if consumed > 0 {
		r.DeserializeMicrosPerRecord = float64(deserNanos) / float64(consumed) / 1e3
		r.DecompressMicrosPerRecord = float64(decompNanos) / float64(consumed) / 1e3
		if w := cEnd.Sub(cStart).Seconds(); w > 0 {
			r.ConsumerRecordsPerSecond = float64(consumed) / w
			r.DeserializeSharePercent = 100 * float64(deserNanos) / (w * 1e9 * float64(max(r.Consumers, 1)))
		}
	}
	if pSeries != nil {
		if cSeries == nil {
			cSeries = NewSeries(pSeries.WidthSeconds)
		}
		r.producerSeries, r.consumerSeries, r.windowStart, r.windowEnd, r.consumerEnd = pSeries, cSeries, pStart, pEnd, cEnd
		r.Intervals, r.IntervalSeconds = r.IntervalsAtMost(MaxIntervals)
		// After every bucket, acknowledged minus first received is what never arrived
		// (lost) less what arrived at two consumers; negative, the latter won.
		if left := pSeries.done() - cSeries.done(); left < 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("intervals: %d records were first received by more than one consumer "+
				"(%s); backlogRecords under-counts by up to that many", -left, redeliveryCause(r.Share)))
		}
	}
	r.EndToEnd = percentiles(hists[EndToEndMicros])
	r.Ack = percentiles(hists[AckLatencyMicros])
	r.latency = map[string]*Histogram{EndToEndMicros: hists[EndToEndMicros], AckLatencyMicros: hists[AckLatencyMicros]}
	r.FetchInterval = percentiles(hists[FetchIntervalMicros])
	r.SendDelay = percentiles(hists[SendDelayMicros])
	r.Stalls = stalls(segs, owners, stallSlack(r))
	r.Client = internals(prodClient, consClient, r.Ack.Mean-r.SendDelay.Mean)
	for _, s := range summaries {
		if s.Probe != nil && r.Probe == nil {
			p := *s.Probe
			r.Probe = &p
		}
	}
	if r.Registry != nil {
		warn := func(w string) { r.Warnings = append(r.Warnings, w) }
		r.Registry.SerializeLookupNanosPerRecord = prodLookup.perRecord(RoleProducer, "serializeLookupNanosPerRecord", warn)
		r.Registry.DeserializeLookupNanosPerRecord = consLookup.perRecord(RoleConsumer, "deserializeLookupNanosPerRecord", warn)
	}
	r.Serialize = percentiles(hists[SerializeNanos])
	r.Deserialize = percentiles(hists[DeserializeNanos])
	r.Compress = percentiles(hists[CompressNanos])
	r.Decompress = percentiles(hists[DecompressNanos])
	if r.ClientSettings["client"] == "sarama" && r.ClientSettings["Net.MaxOpenRequests"] != "1" {
		r.Warnings = append(r.Warnings, SaramaInFlightWarning)
	}
	if r.ClientSettings["client"] == "sarama" && r.Commits > 0 {
		r.Warnings = append(r.Warnings, SaramaCommitWarning)
	}
	r.Warnings = append(r.Warnings, saturation(r)...)
	for name, h := range hists {
		if h.Clamped > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: %d values beyond the histogram range were clamped", name, h.Clamped))
		}
	}
	return r, nil
}

// Latency is the merged histogram of EndToEndMicros or AckLatencyMicros behind
// the result's percentiles (nil when none was recorded, or the result was read
// back from JSON): repetitions merge them in turn (Percentiles).
func (r *Result) Latency(name string) *Histogram { return r.latency[name] }

// Percentiles are a histogram's, as a Result reports them.
func (h *Histogram) Percentiles() Percentiles { return percentiles(h) }

// NewFor returns an empty histogram suited to the named metric.
func newLike(name string) *Histogram {
	if name == SerializeNanos || name == DeserializeNanos || name == CompressNanos || name == DecompressNanos {
		return NewDuration()
	}
	return NewLatency()
}

// NewFor returns an empty histogram for a histogram name.
func NewFor(name string) *Histogram { return newLike(name) }

func widen(start, end, s, e time.Time) (time.Time, time.Time) {
	if s.IsZero() {
		return start, end
	}
	if start.IsZero() || s.Before(start) {
		start = s
	}
	if e.After(end) {
		end = e
	}
	return start, end
}

// Scopes of a trial's usage: what its CPU time is of.
const (
	// ScopeWorkers: each worker measured its own process (a pod's container).
	ScopeWorkers = "workers"
	// ScopeProcess: every worker of the trial ran in one process, measured as a
	// whole (`serdebench run`): its producers' and consumers' shares cannot be told
	// apart, and the runner's own work is in it.
	ScopeProcess = "process"
)

// Usage is what a trial's processes spent in its measured window.
type Usage struct {
	// Scope is ScopeWorkers or ScopeProcess.
	Scope string `json:"scope"`
	// Producers and Consumers are the roles' CPU time summed and their peaks the
	// largest of one worker's (ScopeWorkers).
	Producers *usage.Window `json:"producers,omitempty"`
	Consumers *usage.Window `json:"consumers,omitempty"`
	// Process is the one process every worker ran in, over the producers' window
	// (ScopeProcess).
	Process *usage.Window `json:"process,omitempty"`
	// Broker is the broker's process (`serdebench run` against a local broker) over
	// the producers' window (nil: not read).
	Broker *usage.Window `json:"broker,omitempty"`

	// WorkerCPUMicrosPerRecord is the workers' CPU time (producers and consumers)
	// per measured record; ProducerCPUMicrosPerRecord and ConsumerCPUMicrosPerRecord
	// split it (ScopeWorkers); BrokerCPUMicrosPerRecord is the broker's.
	WorkerCPUMicrosPerRecord   float64 `json:"workerCPUMicrosPerRecord"`
	ProducerCPUMicrosPerRecord float64 `json:"producerCPUMicrosPerRecord,omitempty"`
	ConsumerCPUMicrosPerRecord float64 `json:"consumerCPUMicrosPerRecord,omitempty"`
	BrokerCPUMicrosPerRecord   float64 `json:"brokerCPUMicrosPerRecord,omitempty"`
	// RecordsPerCPUSecond is measured records per second of the workers' CPU.
	RecordsPerCPUSecond float64 `json:"recordsPerCPUSecond"`
}

// Peaks are the largest resident set and Go heap of one of the trial's processes.
func (u *Usage) Peaks() (rssBytes, heapBytes int64) {
	for _, w := range []*usage.Window{u.Producers, u.Consumers, u.Process} {
		if w != nil {
			rssBytes, heapBytes = max(rssBytes, w.PeakRSSBytes), max(heapBytes, w.PeakHeapBytes)
		}
	}
	return rssBytes, heapBytes
}

// JITShares are a trial's largest JIT shares per role (Result.JITShares).
type JITShares struct {
	Producers, Consumers float64
}

// addUsage sums a worker's usage into its role's; a worker without one leaves the
// trial unmeasured (a sum over some workers would read as the whole).
func addUsage(into **usage.Window, w *usage.Window, unmeasured *bool) {
	if w == nil {
		*unmeasured = true
		return
	}
	if *into == nil {
		*into = &usage.Window{}
	}
	t := *into
	t.CPUSeconds += w.CPUSeconds
	t.JITSeconds += w.JITSeconds
	t.PeakRSSBytes = max(t.PeakRSSBytes, w.PeakRSSBytes)
	t.PeakHeapBytes = max(t.PeakHeapBytes, w.PeakHeapBytes)
	t.Seconds = max(t.Seconds, w.Seconds)
}

// derive computes the per-record figures from the windows: records are the
// producers' measured records, consumed the consumers'.
func (u *Usage) derive(records, consumed int64) {
	if records <= 0 {
		return
	}
	perRecord := func(w *usage.Window, n int64) float64 {
		if w == nil || n <= 0 {
			return 0
		}
		return w.CPUSeconds * 1e6 / float64(n)
	}
	var cpu float64
	switch u.Scope {
	case ScopeWorkers:
		u.ProducerCPUMicrosPerRecord = perRecord(u.Producers, records)
		u.ConsumerCPUMicrosPerRecord = perRecord(u.Consumers, consumed)
		cpu = u.Producers.CPUSeconds + u.Consumers.CPUSeconds
	case ScopeProcess:
		cpu = u.Process.CPUSeconds
	}
	u.WorkerCPUMicrosPerRecord = cpu * 1e6 / float64(records)
	if cpu > 0 {
		u.RecordsPerCPUSecond = float64(records) / cpu
	}
	u.BrokerCPUMicrosPerRecord = perRecord(u.Broker, records)
}

// SetBrokerUsage records the brokers' CPU over the producers' window when it is
// read from outside the workers (their pods' cAdvisor series): per measured
// record, like the local broker's. A trial without the workers' usage has none.
func (r *Result) SetBrokerUsage(broker *usage.Window) {
	if r.Usage == nil || broker == nil || r.Records <= 0 {
		return
	}
	r.Usage.Broker = broker
	r.Usage.BrokerCPUMicrosPerRecord = broker.CPUSeconds * 1e6 / float64(r.Records)
}

// SetProcessUsage records the usage of a trial whose workers shared one process,
// and the broker's when read (nil: not).
func (r *Result) SetProcessUsage(process, broker *usage.Window) {
	r.Usage = &Usage{Scope: ScopeProcess, Process: process, Broker: broker}
	r.Usage.derive(r.Records, r.Records)
}

// redeliveryCause is why a record reaches a second consumer.
func redeliveryCause(s *Share) string {
	if s != nil {
		return "a share group's redelivery"
	}
	return "a rebalance"
}
