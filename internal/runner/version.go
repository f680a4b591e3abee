package runner

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/IBM/sarama"
)

// BrokerVersion asks the cluster which API versions it supports and names the broker
// release line they correspond to, as far as sarama knows it, with the controller's id.
func BrokerVersion(brokers []string) (string, error) {
	c := sarama.NewConfig()
	c.Version = sarama.DefaultVersion
	c.Net.DialTimeout = 5 * time.Second
	c.Metadata.Retry.Max = 1
	client, err := sarama.NewClient(brokers, c)
	if err != nil {
		return "", fmt.Errorf("connect to Kafka at %v: %w", brokers, err)
	}
	defer func() { _ = client.Close() }()
	bs := client.Brokers()
	if len(bs) == 0 {
		return "", fmt.Errorf("no brokers in metadata")
	}
	b := bs[0]
	if err := b.Open(c); err != nil && !errors.Is(err, sarama.ErrAlreadyConnected) {
		return "", err
	}
	resp, err := b.ApiVersions(&sarama.ApiVersionsRequest{Version: 3, ClientSoftwareName: "serdebench", ClientSoftwareVersion: "dev"})
	if err != nil {
		return "", fmt.Errorf("api versions: %w", err)
	}
	var parts []string
	for _, k := range resp.ApiKeys {
		if k.ApiKey == 0 || k.ApiKey == 1 { // Produce and Fetch pin down the release well
			parts = append(parts, fmt.Sprintf("api%d:v%d", k.ApiKey, k.MaxVersion))
		}
	}
	sort.Strings(parts)
	return fmt.Sprintf("%d broker(s), %s", len(bs), strings.Join(parts, " ")), nil
}
