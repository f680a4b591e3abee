// Package clientstats reads a Kafka client's own statistics into
// summary.ClientStats by the same names for sarama (its metrics registry, whose
// histograms are made exact here) and franz-go (its hooks), as a worker runs.
package clientstats

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/IBM/sarama"
	"github.com/rcrowley/go-metrics"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/serdebench/serdebench/workers/summary"
)

// samplePeriod is how often in-flight requests and buffered records are read.
const samplePeriod = 100 * time.Millisecond

// recordBatchHeader is the v2 record batch's fixed header: franz-go's batch sizes
// leave it out, the broker's log and sarama's batch-size count it.
const recordBatchHeader = 61

// exact is a go-metrics histogram that also keeps its exact count, sum and
// maximum: sarama's own sample a decaying reservoir of 1,028 values.
type exact struct {
	metrics.Histogram
	count, sum, max atomic.Int64
	// adjust, if set, corrects a value before it is counted exactly.
	adjust func(int64) int64
}

func (h *exact) Update(v int64) {
	h.Histogram.Update(v)
	if h.adjust != nil {
		v = h.adjust(v)
	}
	h.count.Add(1)
	h.sum.Add(v)
	storeMax(&h.max, v)
}

// storeMax raises m to v if v is larger.
func storeMax(m *atomic.Int64, v int64) {
	for {
		cur := m.Load()
		if v <= cur || m.CompareAndSwap(cur, v) {
			return
		}
	}
}

// batchOnly turns sarama's batch-size, which counts the partition's index and
// the batch's length prefix too, into the batch's own size: the prefix is 4 bytes
// up to produce v8, an unsigned varint of length+1 from v9 (sarama uses v9 from
// Kafka 2.8).
func batchOnly(compact bool) func(int64) int64 {
	return func(v int64) int64 {
		if !compact {
			return v - 4 - 4
		}
		for k := int64(1); k <= 5; k++ {
			if n := v - 4 - k; n >= 0 && uvarintLen(n+1) == k {
				return n
			}
		}
		return v
	}
}

func uvarintLen(x int64) int64 {
	n := int64(1)
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// Sarama collects a sarama client's statistics from cfg's metrics registry; call
// it before the client is made.
type Sarama struct {
	reg                                   metrics.Registry
	batchSize, perRequest, ratio, latency *exact
	fetchBatch                            *exact
	sampler                               sampler
	start                                 time.Time
	final                                 final
}

// kept are the metrics a worker reads: sarama unregisters a broker's metrics when
// any of its connections closes, and would start them over on the next one.
var kept = map[string]bool{"batch-size": true, "records-per-request": true, "compression-ratio": true, "request-latency-in-ms": true,
	"consumer-batch-size": true, "requests-in-flight": true, "incoming-byte-rate": true, "consumer-fetch-rate": true}

// keepRegistry is a registry that does not let go of the kept metrics.
type keepRegistry struct{ metrics.Registry }

// Unregister removes a metric unless a worker reads it.
func (r keepRegistry) Unregister(name string) {
	if !kept[name] {
		r.Registry.Unregister(name)
	}
}

// NewSarama registers exact histograms under the names sarama updates, in a
// registry of cfg's that keeps what the worker reads.
func NewSarama(cfg *sarama.Config) *Sarama {
	if cfg.MetricRegistry == nil {
		cfg.MetricRegistry = metrics.NewRegistry()
	}
	cfg.MetricRegistry = keepRegistry{cfg.MetricRegistry}
	s := &Sarama{reg: cfg.MetricRegistry, start: time.Now()}
	reg := func(name string) *exact {
		h := &exact{Histogram: metrics.NewHistogram(metrics.NewExpDecaySample(1028, 0.015))}
		_ = s.reg.Register(name, h)
		return h
	}
	s.batchSize, s.perRequest, s.ratio, s.latency = reg("batch-size"), reg("records-per-request"), reg("compression-ratio"), reg("request-latency-in-ms")
	s.batchSize.adjust = batchOnly(cfg.Version.IsAtLeast(sarama.V2_8_0_0))
	s.fetchBatch = reg("consumer-batch-size")
	s.sampler.start(func() int64 {
		if c, ok := s.reg.Get("requests-in-flight").(metrics.Counter); ok {
			return c.Count()
		}
		return 0
	}, nil)
	return s
}

// Close stops sampling (Stats does too) and lets go of the kept metrics (a
// meter ticks until unregistered); safe to call more than once.
func (s *Sarama) Close() {
	s.sampler.stop()
	s.final.freeze(s.read)
	if k, ok := s.reg.(keepRegistry); ok {
		for name := range kept {
			k.Registry.Unregister(name)
		}
	}
}

// Stats are what the client did so far; it stops sampling.
func (s *Sarama) Stats() *summary.ClientStats {
	s.sampler.stop()
	return s.final.freeze(s.read)
}

// Snapshot is what the client did so far, while it runs and after (the worker's
// metrics read it at every scrape).
func (s *Sarama) Snapshot() *summary.ClientStats { return s.final.or(s.read) }

func (s *Sarama) read() *summary.ClientStats {
	st := &summary.ClientStats{ProduceRequests: s.perRequest.count.Load(), Batches: s.batchSize.count.Load(),
		BatchRecords: s.perRequest.sum.Load(), BatchBytes: s.batchSize.sum.Load(),
		RequestLatencySumMicros: 1000 * s.latency.sum.Load(), RequestLatencyMaxMicros: 1000 * s.latency.max.Load(), RequestLatencyCount: s.latency.count.Load(),
		FetchRecords: s.fetchBatch.sum.Load()}
	// consumer-fetch-response-size is not updated where sarama decodes fetch
	// responses: a consumer's bytes read are nearly all fetch responses
	// (heartbeats, commits and metadata are small).
	if m, ok := s.reg.Get("incoming-byte-rate").(metrics.Meter); ok && st.FetchRecords > 0 {
		st.FetchBytes = m.Count()
	}
	// sarama's compression-ratio is 100 × uncompressed / compressed per batch.
	if n := s.ratio.count.Load(); n > 0 && s.ratio.sum.Load() > 0 {
		st.CompressionRateSum, st.CompressionRateCount = float64(n)*float64(n)*100/float64(s.ratio.sum.Load()), n
	}
	if m, ok := s.reg.Get("consumer-fetch-rate").(metrics.Meter); ok {
		st.FetchRequests = m.Count()
		if secs := time.Since(s.start).Seconds(); secs > 0 {
			st.FetchRequestRate = float64(st.FetchRequests) / secs
		}
	}
	s.sampler.fill(st)
	return st
}

// Franz is a franz-go client's hooks (kgo.WithHooks) and the statistics they
// collect.
type Franz struct {
	requests, batches, records, bytes, uncompressed atomic.Int64
	latSum, latMax, latCount, inFlight              atomic.Int64
	fetches, fetchBytes, fetchRecords               atomic.Int64
	mu                                              sync.Mutex
	rateSum                                         float64
	rateCount                                       int64
	sampler                                         sampler
	start                                           time.Time
	final                                           final
}

var (
	_ kgo.HookProduceBatchWritten = (*Franz)(nil)
	_ kgo.HookBrokerWrite         = (*Franz)(nil)
	_ kgo.HookBrokerE2E           = (*Franz)(nil)
	_ kgo.HookFetchBatchRead      = (*Franz)(nil)
)

// NewFranz makes the hooks; Watch starts sampling the client.
func NewFranz() *Franz { return &Franz{start: time.Now()} }

// Watch samples the client's in-flight requests and buffered records.
func (f *Franz) Watch(cl *kgo.Client) {
	f.sampler.start(func() int64 { return f.inFlight.Load() }, func() (int64, int64) {
		return cl.BufferedProduceBytes(), cl.BufferedProduceRecords()
	})
}

// Settle waits, up to timeout, until the batch hook has counted records records.
// franz-go calls OnProduceBatchWritten from a goroutine of its own, unordered with
// the records' promises, so when Flush returns the last batches (the end markers)
// may not be counted yet.
func (f *Franz) Settle(records int64, timeout time.Duration) {
	for deadline := time.Now().Add(timeout); f.records.Load() < records && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// OnProduceBatchWritten counts a batch the broker acknowledged.
func (f *Franz) OnProduceBatchWritten(_ kgo.BrokerMetadata, _ string, _ int32, m kgo.ProduceBatchMetrics) {
	f.batches.Add(1)
	f.records.Add(int64(m.NumRecords))
	f.bytes.Add(int64(m.CompressedBytes + recordBatchHeader))
	f.uncompressed.Add(int64(m.UncompressedBytes))
	if m.UncompressedBytes > 0 {
		f.mu.Lock()
		f.rateSum += float64(m.CompressedBytes) / float64(m.UncompressedBytes)
		f.rateCount++
		f.mu.Unlock()
	}
}

// OnBrokerWrite counts a produce request going out.
func (f *Franz) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if key == 0 && err == nil {
		f.inFlight.Add(1)
	}
}

// OnBrokerE2E counts a request's round trip: produce requests (key 0) and
// fetches (key 1).
func (f *Franz) OnBrokerE2E(_ kgo.BrokerMetadata, key int16, e kgo.BrokerE2E) {
	switch {
	case key == 0 && (e.WriteErr == nil || connectionDied(e.WriteErr)):
		// Written (OnBrokerWrite counted it), now answered, failed reading, or
		// dropped with its connection.
		f.inFlight.Add(-1)
		if e.WriteErr != nil || e.ReadErr != nil {
			return
		}
		f.requests.Add(1)
		lat := e.DurationE2E().Microseconds()
		f.latSum.Add(lat)
		f.latCount.Add(1)
		storeMax(&f.latMax, lat)
	case key == 1 && e.WriteErr == nil && e.ReadErr == nil:
		f.fetches.Add(1)
		f.fetchBytes.Add(int64(e.BytesRead))
	}
}

// connectionDied says a written request was dropped because its connection died:
// franz-go reports it through OnBrokerE2E's WriteErr (its unexported
// errChosenBrokerDead), after OnBrokerWrite counted the write as a success.
func connectionDied(err error) bool {
	return strings.Contains(err.Error(), "chosen to issue this request has died")
}

// OnFetchBatchRead counts the records a fetch brought.
func (f *Franz) OnFetchBatchRead(_ kgo.BrokerMetadata, _ string, _ int32, m kgo.FetchBatchMetrics) {
	f.fetchRecords.Add(int64(m.NumRecords))
}

// Close stops sampling (Stats does too); safe to call more than once.
func (f *Franz) Close() { f.sampler.stop() }

// Stats are what the client did so far; it stops sampling.
func (f *Franz) Stats() *summary.ClientStats {
	f.sampler.stop()
	return f.final.freeze(f.read)
}

// Snapshot is what the client did so far, while it runs and after (the worker's
// metrics read it at every scrape).
func (f *Franz) Snapshot() *summary.ClientStats { return f.final.or(f.read) }

func (f *Franz) read() *summary.ClientStats {
	f.mu.Lock()
	rateSum, rateCount := f.rateSum, f.rateCount
	f.mu.Unlock()
	st := &summary.ClientStats{ProduceRequests: f.requests.Load(), Batches: f.batches.Load(), BatchRecords: f.records.Load(),
		BatchBytes: f.bytes.Load(), UncompressedBytes: f.uncompressed.Load(), CompressionRateSum: rateSum, CompressionRateCount: rateCount,
		RequestLatencySumMicros: f.latSum.Load(), RequestLatencyMaxMicros: f.latMax.Load(), RequestLatencyCount: f.latCount.Load(),
		FetchRequests: f.fetches.Load(), FetchBytes: f.fetchBytes.Load(), FetchRecords: f.fetchRecords.Load()}
	if secs := time.Since(f.start).Seconds(); secs > 0 && st.FetchRequests > 0 {
		st.FetchRequestRate = float64(st.FetchRequests) / secs
	}
	f.sampler.fill(st)
	return st
}

// final is a client's statistics once it is done (what Stats returned, or Close
// read): Snapshot keeps answering them after the client's meters are gone.
type final struct {
	p atomic.Pointer[summary.ClientStats]
}

// freeze keeps read's statistics unless some are kept already, and returns the kept.
func (f *final) freeze(read func() *summary.ClientStats) *summary.ClientStats {
	if st := f.p.Load(); st != nil {
		return st
	}
	f.p.CompareAndSwap(nil, read())
	return f.p.Load()
}

// or is the kept statistics, else read's.
func (f *final) or(read func() *summary.ClientStats) *summary.ClientStats {
	if st := f.p.Load(); st != nil {
		return st
	}
	return read()
}

// sampler reads in-flight requests and buffered records every samplePeriod.
type sampler struct {
	cancel                  context.CancelFunc
	done                    chan struct{}
	mu                      sync.Mutex
	max, sum, n             int64
	bufBytesMax, bufRecsMax int64
	bufBytesSum, bufRecsSum int64
}

func (s *sampler) start(inFlight func() int64, buffered func() (int64, int64)) {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTicker(samplePeriod)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			v := inFlight()
			s.mu.Lock()
			s.max, s.sum, s.n = max(s.max, v), s.sum+v, s.n+1
			if buffered != nil {
				b, r := buffered()
				s.bufBytesMax, s.bufRecsMax = max(s.bufBytesMax, b), max(s.bufRecsMax, r)
				s.bufBytesSum, s.bufRecsSum = s.bufBytesSum+b, s.bufRecsSum+r
			}
			s.mu.Unlock()
		}
	}()
}

func (s *sampler) stop() {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
}

func (s *sampler) fill(st *summary.ClientStats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.InFlightMax, st.InFlightSum, st.InFlightSamples = s.max, s.sum, s.n
	st.BufferedBytesMax, st.BufferedRecordsMax = s.bufBytesMax, s.bufRecsMax
	st.BufferedBytesSum, st.BufferedRecordsSum = s.bufBytesSum, s.bufRecsSum
}
