package build

import (
	"math"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/workers/summary"
)

// seriesBudget bounds the intervals, and the search steps, of all trials in one
// result, which keeps a result at the matrix cap under its 1.1 MB target
// (result_size_test.go). Each trial gets at least 2 of each.
const seriesBudget = 640

// SeriesPerTrial is how many intervals, and how many search steps, each of n
// trials may report (the API's MaxItems at most).
func SeriesPerTrial(n int) int {
	return min(summary.MaxIntervals, max(2, seriesBudget/max(n, 1)))
}

// TrialResult converts a merged result into the API's integer fields, with at most
// maxItems intervals and search steps.
func TrialResult(t trial.Trial, m *summary.Result, maxItems int) serdebenchv1.TrialResult {
	lat := report.LatencyMicros
	size := t.SizeBytes
	if t.Source != nil {
		size = int32(m.PayloadBytesPerRecord + 0.5) // the user's records: their mean JSON size
	}
	res := serdebenchv1.TrialResult{
		Name: t.Name, Codec: t.Codec,
		Config: repeated(t, t.Config), Repetition: t.Repetition, Schema: t.PayloadSchema(), SizeBytes: size,
		Settings:       t.Settings,
		Reference:      t.Reference,
		ClientSettings: m.ClientSettings,
		Producers:      int32(m.Producers), Consumers: int32(m.Consumers),
		WindowMillis:                   int64(m.WindowSeconds * 1000),
		Records:                        m.Records,
		RecordsPerSecond:               int64(m.RecordsPerSecond),
		SerializedBytesPerSecond:       int64(m.SerializedMBPerSecond * 1e6),
		SerializedBytesPerRecord:       int64(m.SerializedBytesPerRecord + 0.5),
		HeaderBytesPerRecord:           int64(m.HeaderBytesPerRecord + 0.5),
		Commits:                        m.Commits,
		SerializeNanosPerRecord:        int64(m.SerializeMicrosPerRecord * 1000),
		DeserializeNanosPerRecord:      int64(m.DeserializeMicrosPerRecord * 1000),
		CompressedBytesPerRecord:       int64(m.CompressedBytesPerRecord + 0.5),
		CompressNanosPerRecord:         int64(m.CompressMicrosPerRecord * 1000),
		DecompressNanosPerRecord:       int64(m.DecompressMicrosPerRecord * 1000),
		SerializeSharePermille:         int32(m.SerializeSharePercent * 10),
		DeserializeSharePermille:       int32(m.DeserializeSharePercent * 10),
		EndToEndMicros:                 lat(m.EndToEnd),
		AckMicros:                      lat(m.Ack),
		SendDelayMicros:                lat(m.SendDelay),
		SentRecords:                    m.Sent,
		DeliveredRecords:               m.Delivered,
		LostRecords:                    m.Lost,
		FailedRecords:                  m.Failed,
		UnacknowledgedDeliveredRecords: m.UnacknowledgedDelivered,
		DuplicatedRecords:              m.Duplicated,
		Errors:                         m.Errors,
		Warnings:                       m.Warnings,
	}
	res.Resources = Resources(m.Usage)
	res.Client = Internals(m.Client)
	if p := m.Probe; p != nil {
		res.Probe = &serdebenchv1.MachineProbe{CPUNanosPerOp: p.CPUNanosPerOp, FsyncMicros: p.FsyncMicros, ConnectMicros: p.ConnectMicros}
	}
	if r := m.Registry; r != nil {
		res.Registry = &serdebenchv1.RegistryCost{Requests: r.Requests, RequestMicros: int64(r.RequestMillis * 1000),
			SerializeLookupNanosPerRecord: int64(r.SerializeLookupNanosPerRecord + 0.5), DeserializeLookupNanosPerRecord: int64(r.DeserializeLookupNanosPerRecord + 0.5)}
	}
	if x := m.Transactions; x != nil {
		res.Transactions = &serdebenchv1.TransactionsResult{Committed: x.Committed, Aborted: x.Aborted,
			CommittedPerSecondMilli: int64(x.PerSecond*1000 + 0.5), RecordsPerTransaction: int64(x.RecordsPerTransaction + 0.5),
			AbortedRecords: x.AbortedRecords, AbortedDeliveredRecords: x.AbortedDelivered, InDoubt: x.InDoubt,
			CommitP50Micros: x.Commit.P50, CommitP99Micros: x.Commit.P99, CommitMaxMicros: x.Commit.Max}
	}
	res.Stalls = stallsResult(m.Stalls)
	res.Share = shareResult(m.Share)
	if m.FetchInterval.Count > 0 {
		f := lat(m.FetchInterval)
		res.FetchIntervalMicros = &f
	}
	if sr := m.Search; sr != nil {
		res.Search = &serdebenchv1.SearchResult{MaxSustainedRecordsPerSecond: sr.MaxSustainedRecordsPerSecond, Stopped: sr.Stopped}
		// The steps that matter: up to the first one not sustained.
		last := len(sr.Steps) - 1
		for k, st := range sr.Steps {
			if !st.Sustained {
				last = k
				break
			}
		}
		for _, st := range sr.Steps[max(0, last+1-maxItems) : last+1] {
			res.Search.Steps = append(res.Search.Steps, serdebenchv1.SearchStep{Index: int32(st.Index), TargetRecordsPerSecond: st.TargetRecordsPerSecond,
				Records: st.Records, Received: st.Received, AckP99Micros: st.Ack.P99, EndToEndP99Micros: st.EndToEnd.P99,
				Sustained: st.Sustained, Reason: st.Reason})
		}
	}
	res.Phases = m.Phases.DeepCopy()
	ivs, width := m.Intervals, m.IntervalSeconds
	if len(ivs) > maxItems {
		ivs, width = m.IntervalsAtMost(maxItems)
	}
	res.IntervalSeconds = int32(width)
	for _, iv := range ivs {
		res.Intervals = append(res.Intervals, serdebenchv1.Interval{StartTime: metav1.NewTime(iv.Start),
			WindowMillis: int64(iv.Seconds * 1000), Records: iv.Records, RecordsPerSecond: int64(iv.RecordsPerSecond),
			OfferedRecordsPerSecond: int64(iv.OfferedRecordsPerSecond), ConsumedRecordsPerSecond: int64(iv.ConsumedRecordsPerSecond),
			AckP50Micros: iv.Ack.P50, AckP99Micros: iv.Ack.P99, EndToEndP50Micros: iv.EndToEnd.P50,
			EndToEndP99Micros: iv.EndToEnd.P99, BacklogRecords: iv.BacklogRecords})
	}
	return res
}

// Summary is the headline across a result's trials.
func Summary(trials []serdebenchv1.TrialResult) serdebenchv1.ResultSummary {
	s := serdebenchv1.ResultSummary{Trials: int32(len(trials))}
	for _, t := range trials {
		s.LostRecords += t.LostRecords
		s.DuplicatedRecords += t.DuplicatedRecords
		if t.RecordsPerSecond > s.FastestRecordsPerSecond {
			s.FastestRecordsPerSecond, s.FastestCodec, s.FastestTrial = t.RecordsPerSecond, string(t.Codec), t.Name
		}
	}
	return s
}

// repeated is v for a repeated trial, empty otherwise (the result says Config only
// when it differs from Name).
func repeated(t trial.Trial, v string) string {
	if t.Repetition == 0 {
		return ""
	}
	return v
}

// Resources converts a trial's usage to the API's integers (nil: not measured).
func Resources(u *summary.Usage) *serdebenchv1.ResourceUsage {
	if u == nil {
		return nil
	}
	r := &serdebenchv1.ResourceUsage{Scope: u.Scope, WorkerCPUNanosPerRecord: int64(math.Round(u.WorkerCPUMicrosPerRecord * 1e3)),
		ProducerCPUNanosPerRecord: int64(math.Round(u.ProducerCPUMicrosPerRecord * 1e3)), ConsumerCPUNanosPerRecord: int64(math.Round(u.ConsumerCPUMicrosPerRecord * 1e3)),
		BrokerCPUNanosPerRecord: int64(math.Round(u.BrokerCPUMicrosPerRecord * 1e3)), RecordsPerCPUSecond: int64(math.Round(u.RecordsPerCPUSecond))}
	r.PeakRSSBytes, r.PeakHeapBytes = u.Peaks()
	return r
}

// Internals converts a trial's client internals to the API's fields (nil: none).
func Internals(c *summary.ClientInternals) *serdebenchv1.ClientInternals {
	if c == nil {
		return nil
	}
	dec := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	out := &serdebenchv1.ClientInternals{BatchSizeAvgBytes: dec(c.BatchSizeAvgBytes, 0), BatchRecordsAvg: dec(c.BatchRecordsAvg, 2),
		RecordsPerRequestAvg: dec(c.RecordsPerRequestAvg, 2), ProduceRequests: c.ProduceRequests,
		RequestLatencyAvgMicros: int64(math.Round(c.RequestLatencyAvgMicros)), RequestLatencyMaxMicros: c.RequestLatencyMaxMicros,
		RecordQueueTimeAvgMicros: int64(math.Round(c.RecordQueueTimeAvgMicros)), RequestsInFlightAvg: dec(c.RequestsInFlightAvg, 2),
		RequestsInFlightMax: c.RequestsInFlightMax, BufferedBytesMax: c.BufferedBytesMax, BufferedRecordsMax: c.BufferedRecordsMax,
		FetchRequestRate: dec(c.FetchRequestRate, 1), FetchSizeAvgBytes: int64(math.Round(c.FetchSizeAvgBytes)), RecordsPerFetchAvg: dec(c.RecordsPerFetchAvg, 2)}
	if c.CompressionRateAvg > 0 {
		out.CompressionRateAvg = dec(c.CompressionRateAvg, 3)
	}
	return out
}

// stallsResult is a trial's stalls in the API's units.
func stallsResult(st *summary.Stalls) *serdebenchv1.StallsResult {
	if st == nil {
		return nil
	}
	return &serdebenchv1.StallsResult{Count: int32(st.Count), Partitions: int32(st.Partitions), Moved: int32(st.Moved), MaxMicros: st.MaxMicros,
		TotalMicros: st.TotalMicros, DelayedRecords: st.Delayed, DelayedMaxMicros: st.DelayedMaxMicros, SlackMicros: st.SlackMicros}
}

// shareResult is a share group's deliveries in the API's units.
func shareResult(s *summary.Share) *serdebenchv1.ShareResult {
	if s == nil {
		return nil
	}
	return &serdebenchv1.ShareResult{Acknowledgement: trial.ShareAcknowledgement(s.Acknowledgement), Deliveries: s.Deliveries,
		Redelivered: s.Redelivered, Released: s.Released, Archived: s.Archived, MaxDeliveryCount: s.MaxDeliveryCount, AckErrors: s.AckErrors,
		SettledLag: s.SettledLag, AckP50Micros: s.Ack.P50, AckP99Micros: s.Ack.P99, AckMaxMicros: s.Ack.Max}
}
