package runner

import (
	"context"

	"github.com/serdebench/serdebench/internal/topics"
	"github.com/serdebench/serdebench/workers/kafkaconn"
)

// BrokerVersion describes the cluster's protocol level (see topics.Admin.Version).
func BrokerVersion(ctx context.Context, brokers []string, sec kafkaconn.Security) (string, error) {
	return (&topics.Admin{Brokers: brokers, Security: sec}).Version(ctx)
}
