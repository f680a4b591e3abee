package clientstats

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/serdebench/serdebench/workers/summary"
)

// RdkafkaStatsInterval is how often librdkafka emits its statistics
// (statistics.interval.ms): the in-flight and buffered samples' period, and the
// longest a client's last batches wait to be counted.
const RdkafkaStatsInterval = 200 * time.Millisecond

// Rdkafka is what a librdkafka client's statistics (STATISTICS.md) say, summed:
// its window statistics (batch sizes, round trips) cover the time since the
// previous emission, so every emission adds its windows; its counters (requests
// by type, records and bytes received) are totals, kept as last seen.
type Rdkafka struct {
	mu                      sync.Mutex
	start                   time.Time
	emissions               int64
	batches, batchRecords   int64
	batchBytes              int64
	latSum, latMax, latCnt  int64
	produceReqs, fetchReqs  int64
	fetchBytes, fetchRecs   int64
	inMax, inSum, samples   int64
	bufBytesMax, bufRecsMax int64
	bufBytesSum, bufRecsSum int64
	changed                 *sync.Cond
	final                   final
}

// NewRdkafka starts counting.
func NewRdkafka() *Rdkafka {
	r := &Rdkafka{start: time.Now()}
	r.changed = sync.NewCond(&r.mu)
	return r
}

// window is one of librdkafka's window statistics (sums over the emission's
// period; times in µs).
type window struct {
	Max int64 `json:"max"`
	Sum int64 `json:"sum"`
	Cnt int64 `json:"cnt"`
}

// rdkafkaStats are the parts of an emission serdebench reads.
type rdkafkaStats struct {
	MsgCnt  int64 `json:"msg_cnt"`
	MsgSize int64 `json:"msg_size"`
	Brokers map[string]struct {
		WaitResp int64            `json:"waitresp_cnt"`
		Req      map[string]int64 `json:"req"`
		RTT      window           `json:"rtt"`
		Source   string           `json:"source"`
	} `json:"brokers"`
	Topics map[string]struct {
		BatchSize  window `json:"batchsize"`
		BatchCnt   window `json:"batchcnt"`
		Partitions map[string]struct {
			RxMsgs  int64 `json:"rxmsgs"`
			RxBytes int64 `json:"rxbytes"`
		} `json:"partitions"`
	} `json:"topics"`
}

// Update adds one emission (a kafka.Stats event's JSON).
func (r *Rdkafka) Update(js string) {
	var s rdkafkaStats
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var produce, fetch, inFlight, fetchBytes, fetchRecs int64
	for _, b := range s.Brokers {
		if b.Source != "learned" {
			// A bootstrap ("configured") connection's metadata requests, and the
			// group coordinator's ("logical") heartbeats and commits, are not a
			// broker's produce or fetch traffic.
			continue
		}
		produce += b.Req["Produce"]
		fetch += b.Req["Fetch"]
		inFlight += b.WaitResp
		r.latSum += b.RTT.Sum
		r.latCnt += b.RTT.Cnt
		r.latMax = max(r.latMax, b.RTT.Max)
	}
	for _, t := range s.Topics {
		r.batches += t.BatchSize.Cnt
		r.batchBytes += t.BatchSize.Sum
		r.batchRecords += t.BatchCnt.Sum
		for id, p := range t.Partitions {
			if id == "-1" {
				continue // the unassigned-partition queue
			}
			fetchBytes += p.RxBytes
			fetchRecs += p.RxMsgs
		}
	}
	r.produceReqs, r.fetchReqs, r.fetchBytes, r.fetchRecs = produce, fetch, fetchBytes, fetchRecs
	r.inMax, r.inSum, r.samples = max(r.inMax, inFlight), r.inSum+inFlight, r.samples+1
	r.bufBytesMax, r.bufRecsMax = max(r.bufBytesMax, s.MsgSize), max(r.bufRecsMax, s.MsgCnt)
	r.bufBytesSum, r.bufRecsSum = r.bufBytesSum+s.MsgSize, r.bufRecsSum+s.MsgCnt
	r.emissions++
	r.changed.Broadcast()
}

// Next waits up to timeout for an emission after the ones seen so far: one that
// covers what the client did until now.
func (r *Rdkafka) Next(timeout time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := r.emissions
	t := time.AfterFunc(timeout, func() {
		r.mu.Lock()
		r.changed.Broadcast()
		r.mu.Unlock()
	})
	defer t.Stop()
	deadline := time.Now().Add(timeout)
	for r.emissions == seen && time.Now().Before(deadline) {
		r.changed.Wait()
	}
}

// Close keeps the statistics so far; Snapshot answers them from then on.
func (r *Rdkafka) Close() { r.final.freeze(r.read) }

// Stats are what the client did so far.
func (r *Rdkafka) Stats() *summary.ClientStats { return r.final.freeze(r.read) }

// Snapshot is what the client did so far, while it runs and after.
func (r *Rdkafka) Snapshot() *summary.ClientStats { return r.final.or(r.read) }

func (r *Rdkafka) read() *summary.ClientStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := &summary.ClientStats{ProduceRequests: r.produceReqs, Batches: r.batches, BatchRecords: r.batchRecords, BatchBytes: r.batchBytes,
		RequestLatencySumMicros: r.latSum, RequestLatencyMaxMicros: r.latMax, RequestLatencyCount: r.latCnt,
		InFlightMax: r.inMax, InFlightSum: r.inSum, InFlightSamples: r.samples,
		BufferedBytesMax: r.bufBytesMax, BufferedRecordsMax: r.bufRecsMax, BufferedBytesSum: r.bufBytesSum, BufferedRecordsSum: r.bufRecsSum,
		FetchRequests: r.fetchReqs, FetchBytes: r.fetchBytes, FetchRecords: r.fetchRecs}
	if secs := time.Since(r.start).Seconds(); secs > 0 && st.FetchRequests > 0 {
		st.FetchRequestRate = float64(st.FetchRequests) / secs
	}
	return st
}
