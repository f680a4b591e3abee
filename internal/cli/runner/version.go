package runner

import (
	"context"

	"github.com/serdebench/serdebench/internal/topics"
	"github.com/serdebench/serdebench/workers/kafkaconn"
)

// Broker describes the cluster: its release and API versions (topics.Admin.Broker).
func Broker(ctx context.Context, brokers []string, sec kafkaconn.Security) (topics.Broker, error) {
	return (&topics.Admin{Brokers: brokers, Security: sec}).Broker(ctx)
}
