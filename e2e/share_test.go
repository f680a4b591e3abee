//go:build e2e

package e2e

import (
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
)

// TestShareGroup runs the share-group sample through the operator (one codec, the
// share group alone, shortened): franz-go's share consumers in pods against the
// cluster's broker. One record in N per producer and partition is released on
// every delivery, so the result must count each of them delivered the limit's
// times and archived, as the local read-back test proves exactly
// (internal/cli/runner/share_test.go), lose nothing, and carry the explicit
// acknowledgements' times.
func TestShareGroup(t *testing.T) {
	const releaseOneIn, limit = 100, 3
	x := sample(t, "local/share-groups.yaml", "share-groups")
	x.Spec.Codecs = []trial.Codec{trial.CodecProtobuf}
	x.Spec.Matrix = nil
	x.Spec.DurationSeconds, x.Spec.Warmup = ptr(int32(8)), trial.Warmup{DurationSeconds: 2}
	x.Spec.Rate.RecordsPerSecond = 2000
	x.Spec.Consumer.GroupType = trial.GroupTypeShare
	x.Spec.Consumer.Share = &v1alpha1.ShareSpec{Acknowledgement: trial.ShareAckExplicit, DeliveryCountLimit: ptr(int32(limit)), ReleaseOneIn: ptr(int32(releaseOneIn))}
	x.Spec.TimeoutSeconds = 300
	create(t, x)
	x, res := succeeded(t, x.Name, 6*time.Minute)
	checkTrials(t, res, 1)
	tr := res.Trials[0]
	sh := tr.Share
	if sh == nil {
		t.Fatalf("no share block: %+v", tr)
	}
	// Each of 3 partitions numbers its records from 0: ⌈n/N⌉ of its n released.
	low, high := tr.DeliveredRecords/releaseOneIn, tr.DeliveredRecords/releaseOneIn+3
	if sh.Archived < low || sh.Archived > high || sh.Released != sh.Archived*limit || sh.MaxDeliveryCount != limit ||
		sh.Redelivered != sh.Archived*(limit-1) || tr.DuplicatedRecords != sh.Redelivered {
		t.Errorf("share %+v, delivered %d, duplicated %d: want %d–%d records released on each of %d deliveries, archived, and nothing else delivered twice",
			sh, tr.DeliveredRecords, tr.DuplicatedRecords, low, high, limit)
	}
	if sh.AckP50Micros <= 0 || sh.AckP99Micros < sh.AckP50Micros || sh.AckErrors != 0 {
		t.Errorf("explicit acknowledgements p50 %d µs p99 %d µs, %d refused", sh.AckP50Micros, sh.AckP99Micros, sh.AckErrors)
	}
	t.Logf("share group in pods: delivered %d, deliveries %d, redelivered %d, archived %d; ack p50 %d µs p99 %d µs; e2e p50 %d µs p99 %d µs",
		tr.DeliveredRecords, sh.Deliveries, sh.Redelivered, sh.Archived, sh.AckP50Micros, sh.AckP99Micros, tr.EndToEndMicros.P50, tr.EndToEndMicros.P99)
	deleteAndCheckClean(t, x, []string{stack.kafka})
}
