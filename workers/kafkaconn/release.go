package kafkaconn

import (
	"fmt"
	"strings"

	"github.com/IBM/sarama"
)

// metadataVersions are Kafka's metadata.version feature levels and their names
// (org.apache.kafka.server.common.MetadataVersion in kafka-server-common), level 7
// (3.3-IV3, KRaft's first production level) onwards. A broker's highest supported
// level is the newest production level of its release, so it names the release the
// broker runs: Kafka sends no release over the protocol, but it sends this
// (ApiVersions v3+). Read from the 4.4.0 jar; TestBrokerRelease checks the levels
// of the brokers the tests run against it.
var metadataVersions = []string{
	7: "3.3-IV3", 8: "3.4-IV0", 9: "3.5-IV0", 10: "3.5-IV1", 11: "3.5-IV2", 12: "3.6-IV0", 13: "3.6-IV1",
	14: "3.6-IV2", 15: "3.7-IV0", 16: "3.7-IV1", 17: "3.7-IV2", 18: "3.7-IV3", 19: "3.7-IV4", 20: "3.8-IV0",
	21: "3.9-IV0", 22: "4.0-IV0", 23: "4.0-IV1", 24: "4.0-IV2", 25: "4.0-IV3", 26: "4.1-IV0", 27: "4.1-IV1",
	28: "4.2-IV0", 29: "4.2-IV1", 30: "4.3-IV0", 31: "4.4-IV0", 32: "4.4-IV1", 33: "4.4-IV2",
}

// metadataVersionName is a level's name ("4.4-IV2"), or the level itself when
// this table does not know it.
func metadataVersionName(level int16) string {
	if known(level) {
		return metadataVersions[level]
	}
	return fmt.Sprintf("level %d", level)
}

// known says whether the table names a level.
func known(level int16) bool {
	return level >= 0 && int(level) < len(metadataVersions) && metadataVersions[level] != ""
}

// BrokerRelease is what a broker says of its release in its ApiVersions answer
// (v3+): Line, the release line of the newest metadata.version it supports
// ("4.4"; empty when it sent none or one below 3.3-IV3: a ZooKeeper-mode or
// pre-3.3 broker), and
// MetadataVersion, the level the cluster has finalized ("4.3-IV0" after an
// upgrade to 4.4 not yet finalized).
type BrokerRelease struct {
	Line, MetadataVersion string
}

// String reads "4.4 (metadata.version 4.4-IV2)".
func (r BrokerRelease) String() string {
	switch {
	case r.Line == "":
		return ""
	case r.MetadataVersion == "":
		return r.Line
	}
	return fmt.Sprintf("%s (metadata.version %s)", r.Line, r.MetadataVersion)
}

// ReleaseOf reads the release from an ApiVersions answer's features.
func ReleaseOf(resp *sarama.ApiVersionsResponse) BrokerRelease {
	var out BrokerRelease
	for _, f := range resp.SupportedFeatures {
		if f.Name != "metadata.version" {
			continue
		}
		switch {
		case known(f.MaxVersion):
			out.Line, _, _ = strings.Cut(metadataVersions[f.MaxVersion], "-")
		case int(f.MaxVersion) >= len(metadataVersions):
			// Newer than this table: say what is known.
			out.Line = "newer than " + lastLine()
		}
		// Below the table (KRaft before 3.3): nothing is said, and the caller
		// guesses from the API versions.
	}
	for _, f := range resp.FinalizedFeatures {
		if f.Name == "metadata.version" && resp.FinalizedFeaturesEpoch >= 0 {
			out.MetadataVersion = metadataVersionName(f.MaxVersionLevel)
		}
	}
	return out
}

// lastLine is the newest release line the table knows.
func lastLine() string {
	line, _, _ := strings.Cut(metadataVersions[len(metadataVersions)-1], "-")
	return line
}
