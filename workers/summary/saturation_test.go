package summary

import (
	"strings"
	"testing"
)

// TestSaturation: an open-loop trial whose requests in flight sat at their most
// while records queued in the client for a third of their latency (the
// calibration's librdkafka at 80 ms), or longer than the linger, is warned about,
// naming both; one with spare slots, records queued within the linger, or a
// closed loop however full, is not; a slipping rate is warned about.
func TestSaturation(t *testing.T) {
	open := Percentiles{Count: 100, Mean: 120, P99: 900, Max: 2000}
	ack := Percentiles{Count: 100, Mean: 73000}
	saturated := &ClientInternals{RequestsInFlightAvg: 17.8, RequestsInFlightMax: 20, RecordQueueTimeAvgMicros: 26600}
	w := saturation(&Result{SendDelay: open, Ack: ack, Client: saturated})
	if len(w) != 1 || !strings.Contains(w[0], "client saturated: requests in flight averaged 17.8 of at most 20") || !strings.Contains(w[0], "26.6 ms") ||
		!strings.Contains(w[0], "36 %") {
		t.Fatalf("saturated: %v", w)
	}
	spare := &ClientInternals{RequestsInFlightAvg: 4, RequestsInFlightMax: 20, RecordQueueTimeAvgMicros: 26600}
	if w := saturation(&Result{SendDelay: open, Ack: ack, Client: spare}); len(w) != 0 {
		t.Fatalf("spare slots: %v", w)
	}
	if w := saturation(&Result{Ack: ack, Client: saturated}); len(w) != 0 {
		t.Fatalf("closed loop: %v", w)
	}
	// The calibration at 50 ms round trip (linger 5 ms): librdkafka with 18.05 of
	// 20 requests in flight and records queued 5.76 ms, beyond the linger, saw its
	// ack move 2.5 ms more than the round trip: warned. franz-go, 8.3 of 20 in
	// flight, and librdkafka with no delay, records queued less than the linger,
	// are not.
	rtt50 := Percentiles{Count: 100, Mean: 57000}
	rdkafka := &ClientInternals{RequestsInFlightAvg: 18.05, RequestsInFlightMax: 20, RecordQueueTimeAvgMicros: 5764}
	if w := saturation(&Result{SendDelay: open, Ack: rtt50, Client: rdkafka, lingerMicros: 5000}); len(w) != 1 || !strings.Contains(w[0], "waited 5.8 ms in the client (linger 5 ms") {
		t.Fatalf("librdkafka at 50 ms: %v", w)
	}
	franz := &ClientInternals{RequestsInFlightAvg: 8.3, RequestsInFlightMax: 20, RecordQueueTimeAvgMicros: 2079}
	if w := saturation(&Result{SendDelay: open, Ack: rtt50, Client: franz, lingerMicros: 5000}); len(w) != 0 {
		t.Fatalf("franz-go at 50 ms: %v", w)
	}
	batching := &ClientInternals{RequestsInFlightAvg: 18, RequestsInFlightMax: 20, RecordQueueTimeAvgMicros: 3457}
	if w := saturation(&Result{SendDelay: open, Ack: rtt50, Client: batching, lingerMicros: 5000}); len(w) != 0 {
		t.Fatalf("queued within the linger: %v", w)
	}
	slipped := Percentiles{Count: 100, Mean: 4500, P99: 30000, Max: 40000}
	if w := saturation(&Result{SendDelay: slipped, Ack: ack, Client: spare}); len(w) != 1 || !strings.Contains(w[0], "rate slipped: records went out a mean 4.5 ms (p99 30.0 ms)") {
		t.Fatalf("slipped: %v", w)
	}
}
