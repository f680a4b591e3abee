package kafkaconn_test

import (
	"strings"
	"testing"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/kafkaconn"
)

// TestReleaseOf: the release line is the newest supported metadata.version's, the
// finalized level is named beside it (an upgrade not yet finalized shows), a level
// beyond the table says so, and a broker without features says nothing.
func TestReleaseOf(t *testing.T) {
	resp := func(supported, finalized int16) *sarama.ApiVersionsResponse {
		return &sarama.ApiVersionsResponse{Version: 3,
			SupportedFeatures:      []sarama.SupportedFeatureKey{{Name: "kraft.version", MinVersion: 0, MaxVersion: 1}, {Name: "metadata.version", MinVersion: 7, MaxVersion: supported}},
			FinalizedFeaturesEpoch: 5, FinalizedFeatures: []sarama.FinalizedFeatureKey{{Name: "metadata.version", MinVersionLevel: finalized, MaxVersionLevel: finalized}}}
	}
	for _, c := range []struct {
		supported, finalized int16
		want                 string
	}{
		{33, 33, "4.4 (metadata.version 4.4-IV2)"},
		{30, 30, "4.3 (metadata.version 4.3-IV0)"},
		{33, 30, "4.4 (metadata.version 4.3-IV0)"},
		{21, 21, "3.9 (metadata.version 3.9-IV0)"},
		{35, 34, "newer than 4.4 (metadata.version level 34)"},
		{5, 5, ""},
		{-1, 0, ""},
	} {
		if got := kafkaconn.ReleaseOf(resp(c.supported, c.finalized)).String(); got != c.want {
			t.Errorf("supported %d, finalized %d: %q, want %q", c.supported, c.finalized, got, c.want)
		}
	}
	if got := kafkaconn.ReleaseOf(&sarama.ApiVersionsResponse{Version: 2}).String(); got != "" {
		t.Errorf("no features: %q, want nothing", got)
	}
}

// TestBrokerRelease asks the real broker (the current Kafka line, or the previous
// one under make test-kafka-previous) and must name the release the Makefile
// started: the table's levels checked against a real broker of each line.
func TestBrokerRelease(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	b := sarama.NewBroker(brokers[0])
	c := sarama.NewConfig()
	if err := b.Open(c); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	resp, err := b.ApiVersions(&sarama.ApiVersionsRequest{Version: 3, ClientSoftwareName: "serdebench-test", ClientSoftwareVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	r := kafkaconn.ReleaseOf(resp)
	if want := kafkatest.Line(t); r.Line != want || !strings.HasPrefix(r.MetadataVersion, want+"-") {
		t.Fatalf("the broker says %q (%+v), want release line %s, its metadata.version finalized at that line (a broker formatted by its own release)", r, resp.SupportedFeatures, want)
	}
	t.Logf("Kafka %s: %s", kafkatest.Release(t), r)
}
