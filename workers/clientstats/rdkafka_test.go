package clientstats

import (
	"fmt"
	"testing"
	"time"
)

// emission is a librdkafka statistics JSON (STATISTICS.md) cut to what Update
// reads, with a bootstrap connection, the group coordinator's logical one and the
// unassigned-partition queue (-1), which must not count.
func emission(produce, fetch, rxmsgs, inFlight int64, batches, batchBytes, batchRecs, rttSum, rttCnt, rttMax int64) string {
	return fmt.Sprintf(`{"msg_cnt": 7, "msg_size": 7000,
	 "brokers": {
	  "127.0.0.1:9092/bootstrap": {"source": "configured", "waitresp_cnt": 9, "req": {"Produce": 100, "Fetch": 100}, "rtt": {"max": 1, "sum": 100, "cnt": 100}},
	  "GroupCoordinator": {"source": "logical", "waitresp_cnt": 9, "req": {"Heartbeat": 100, "OffsetCommit": 100}, "rtt": {"max": 1, "sum": 100, "cnt": 100}},
	  "127.0.0.1:9092/1": {"source": "learned", "waitresp_cnt": %d, "req": {"Produce": %d, "Fetch": %d, "Metadata": 3}, "rtt": {"max": %d, "sum": %d, "cnt": %d}}},
	 "topics": {"t": {"batchsize": {"sum": %d, "cnt": %d}, "batchcnt": {"sum": %d, "cnt": %d},
	  "partitions": {"0": {"rxmsgs": %d, "rxbytes": %d}, "-1": {"rxmsgs": 1000, "rxbytes": 1000}}}}}`,
		inFlight, produce, fetch, rttMax, rttSum, rttCnt, batchBytes, batches, batchRecs, batches, rxmsgs, 10*rxmsgs)
}

// TestRdkafkaStats: window statistics (batches, round trips) add up over
// emissions, counters (requests by type, records fetched) are the last seen, and
// samples (in flight, buffered) give means and maxima.
func TestRdkafkaStats(t *testing.T) {
	r := NewRdkafka()
	r.Update(emission(10, 4, 50, 2, 10, 20000, 300, 5000, 10, 900))
	r.Update(emission(25, 9, 120, 4, 15, 30000, 450, 7000, 15, 700))
	r.Update("not json")
	st := r.Stats()
	switch {
	case st.ProduceRequests != 25 || st.FetchRequests != 9 || st.FetchRecords != 120 || st.FetchBytes != 1200:
		t.Errorf("counters: %+v", st)
	case st.Batches != 25 || st.BatchBytes != 50000 || st.BatchRecords != 750:
		t.Errorf("batches: %d of %d B, %d records; want 25, 50000, 750", st.Batches, st.BatchBytes, st.BatchRecords)
	case st.RequestLatencySumMicros != 12000 || st.RequestLatencyCount != 25 || st.RequestLatencyMaxMicros != 900:
		t.Errorf("round trips: sum %d over %d, max %d", st.RequestLatencySumMicros, st.RequestLatencyCount, st.RequestLatencyMaxMicros)
	case st.InFlightSamples != 2 || st.InFlightSum != 6 || st.InFlightMax != 4 || st.BufferedBytesMax != 7000 || st.BufferedRecordsSum != 14:
		t.Errorf("samples: %+v", st)
	case st.FetchRequestRate <= 0:
		t.Errorf("fetch rate %v", st.FetchRequestRate)
	}
	// Stats froze them: later emissions change nothing.
	r.Update(emission(99, 99, 999, 9, 99, 99, 99, 99, 99, 99))
	if again := r.Snapshot(); again.ProduceRequests != 25 {
		t.Errorf("after Stats, an emission changed the statistics: %+v", again)
	}
}

// TestRdkafkaNext: Next returns at the next emission, or after its timeout.
func TestRdkafkaNext(t *testing.T) {
	r := NewRdkafka()
	go func() {
		time.Sleep(20 * time.Millisecond)
		r.Update(emission(1, 1, 1, 1, 1, 1, 1, 1, 1, 1))
	}()
	start := time.Now()
	r.Next(5 * time.Second)
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("Next waited %s for an emission 20 ms away", d)
	}
	if s := r.Snapshot(); s.ProduceRequests != 1 {
		t.Errorf("after Next: %+v", s)
	}
	start = time.Now()
	r.Next(50 * time.Millisecond)
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("Next returned after %s without an emission, before its timeout", d)
	}
}
