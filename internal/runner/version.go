package runner

import (
	"context"

	"github.com/serdebench/serdebench/internal/kafkaconn"
	"github.com/serdebench/serdebench/internal/topics"
)

// BrokerVersion describes the cluster's protocol level (see topics.Admin.Version).
func BrokerVersion(brokers []string, sec kafkaconn.Security) (string, error) {
	return (&topics.Admin{Brokers: brokers, Security: sec}).Version(context.Background())
}
