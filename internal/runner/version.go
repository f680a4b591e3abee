package runner

import (
	"context"

	"github.com/serdebench/serdebench/internal/topics"
)

// BrokerVersion describes the cluster's protocol level (see topics.Admin.Version).
func BrokerVersion(brokers []string) (string, error) {
	return (&topics.Admin{Brokers: brokers}).Version(context.Background())
}
