package netem

import (
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
)

func TestFromFault(t *testing.T) {
	m, err := FromFault(&trial.NetworkFault{LossPercent: "0.5", LossCorrelationPercent: 25,
		Delay:     &trial.Delay{LatencyMicroseconds: 69500, JitterMicroseconds: 5600, Distribution: trial.DistributionNormal},
		Bandwidth: &trial.Bandwidth{RateKilobitsPerSecond: 5000, BufferBytes: 10000, LimitBytes: 262144}})
	if err != nil {
		t.Fatal(err)
	}
	want := Impairment{Delay: 69500 * time.Microsecond, Jitter: 5600 * time.Microsecond, Normal: true, Loss: 0.005, LossCorrelation: 0.25,
		RateBytesPerSecond: 625_000, BufferBytes: 10000, LimitBytes: 262144}
	if m != want {
		t.Fatalf("impairment %+v, want %+v", m, want)
	}
	if _, err := FromFault(&trial.NetworkFault{LossPercent: "x"}); err == nil {
		t.Fatal("a loss that is not a number: no error")
	}
}
