// Package topics creates, checks and deletes a trial's Kafka topic: as a Strimzi
// KafkaTopic resource, or through the Kafka Admin API.
package topics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/serdebench/serdebench/workers/kafkaconn"
)

// Spec is the topic to provision.
type Spec struct {
	Name       string
	Partitions int32
	Replicas   int32
	Config     map[string]string
	// Labels go on the KafkaTopic resource (Strimzi only).
	Labels map[string]string
}

// Provisioner creates and deletes topics. Every method is idempotent.
type Provisioner interface {
	// Ensure creates the topic if it is absent and reports whether it is ready. A
	// non-nil error with ready false means the topic cannot become ready.
	Ensure(ctx context.Context, s Spec) (ready bool, err error)
	// Reachable checks, changing nothing, that Ensure could reach what creates
	// topics: a broker answers, or Strimzi's KafkaTopic kind is served.
	Reachable(ctx context.Context) error
	// Delete removes the topic; a missing topic is not an error.
	Delete(ctx context.Context, name string) error
	// Broker describes the Kafka cluster, for the result's environment.
	Broker(ctx context.Context) (Broker, error)
}

// Broker is what a run records of the Kafka cluster.
type Broker struct {
	// Release is the Kafka release: as Strimzi's Kafka resource reports (status)
	// or requests (spec) it, else as the broker says it (kafkaconn.ReleaseOf: its
	// newest metadata.version's line and the finalized level, "4.4
	// (metadata.version 4.4-IV2)"), else franz-go's guess from the API versions
	// ("at least v4.1") for a broker that sends no features.
	Release string
	// Spoke says Release is the broker's own word (its metadata.version), not
	// a declaration or a guess.
	Spoke bool
	// APIVersions are the brokers' count and their Produce and Fetch API versions
	// (empty for Strimzi, which is not asked).
	APIVersions string
}

// Broker asks a broker for its API versions and features and reads the release
// from them.
func (a *Admin) Broker(ctx context.Context) (Broker, error) {
	return kafkaconn.Bounded(ctx, a.broker)
}

func (a *Admin) broker() (Broker, error) {
	c := kafkaconn.Base("serdebench")
	if err := a.Security.Apply(c); err != nil {
		return Broker{}, err
	}
	cl, err := sarama.NewClient(a.Brokers, c)
	if err != nil {
		return Broker{}, fmt.Errorf("connect to Kafka at %v: %w", a.Brokers, err)
	}
	defer func() { _ = cl.Close() }()
	brokers := cl.Brokers()
	if len(brokers) == 0 {
		return Broker{}, errors.New("no brokers in metadata")
	}
	b := brokers[0]
	if err := b.Open(c); err != nil && !errors.Is(err, sarama.ErrAlreadyConnected) {
		return Broker{}, err
	}
	resp, err := b.ApiVersions(&sarama.ApiVersionsRequest{Version: 3, ClientSoftwareName: "serdebench", ClientSoftwareVersion: "v1alpha1"})
	if err != nil {
		return Broker{}, fmt.Errorf("api versions: %w", err)
	}
	var produce, fetch int16
	keys := &kmsg.ApiVersionsResponse{}
	for _, k := range resp.ApiKeys {
		switch k.ApiKey {
		case 0:
			produce = k.MaxVersion
		case 1:
			fetch = k.MaxVersion
		}
		keys.ApiKeys = append(keys.ApiKeys, kmsg.ApiVersionsResponseApiKey{ApiKey: k.ApiKey, MinVersion: k.MinVersion, MaxVersion: k.MaxVersion})
	}
	// The broker's own word first (its newest metadata.version); franz-go's guess
	// from the API versions for a broker that sends no features.
	release := kafkaconn.ReleaseOf(resp).String()
	spoke := release != ""
	if !spoke {
		release = kversion.FromApiVersionsResponse(keys).VersionGuess()
	}
	return Broker{Release: release, Spoke: spoke,
		APIVersions: fmt.Sprintf("%d broker(s), produce v%d, fetch v%d", len(brokers), produce, fetch)}, nil
}

// Admin provisions topics through the Kafka Admin API.
type Admin struct {
	Brokers  []string
	Security kafkaconn.Security
	// Pool, if set, shares clients between calls; nil opens one per call.
	Pool *Pool
}

func (a *Admin) admin() (sarama.ClusterAdmin, error) {
	c := kafkaconn.Base("serdebench-operator")
	// Shorter than Base: the operator's single reconcile worker waits on this; the
	// trial timeout, not one call, decides when Kafka has been gone too long.
	c.Net.DialTimeout = 3 * time.Second
	c.Metadata.Retry.Max = 0
	if err := a.Security.Apply(c); err != nil {
		return nil, err
	}
	ad, err := sarama.NewClusterAdmin(a.Brokers, c)
	if err != nil {
		return nil, fmt.Errorf("connect to Kafka at %v: %w", a.Brokers, err)
	}
	return ad, nil
}

// withAdmin runs f with an admin client, bounded by ctx (sarama's calls take no
// context): the pool's, or a fresh one closed after.
func withAdmin[T any](ctx context.Context, a *Admin, f func(sarama.ClusterAdmin) (T, error)) (T, error) {
	return kafkaconn.Bounded(ctx, func() (T, error) {
		var zero T
		if a.Pool != nil {
			l, err := a.Pool.get(poolKey(a.Brokers, a.Security), a.admin)
			if err != nil {
				return zero, err
			}
			// A call its caller gave up on may hold the shared connection: no
			// other call gets that client from now on.
			stop := context.AfterFunc(ctx, l.abandon)
			v, err := f(l.admin)
			stop()
			l.done(answered(err))
			return v, err
		}
		ad, err := a.admin()
		if err != nil {
			return zero, err
		}
		defer func() { _ = ad.Close() }()
		return f(ad)
	})
}

// answered reports whether a call's outcome came from Kafka (success, or an error
// Kafka answered with, or a refusal decided from its answer), so the client that
// carried it is sound; any other error (a connection, a timeout) is not.
func answered(err error) bool {
	var kerr sarama.KError
	var terr *sarama.TopicError
	return err == nil || errors.As(err, &kerr) || errors.As(err, &terr) || errors.Is(err, ErrUnusableTopic) ||
		errors.Is(err, errPartitions)
}

// Reachable asks the brokers for the cluster's metadata (on a pooled client too,
// so a broker that went away since is noticed) and changes nothing.
func (a *Admin) Reachable(ctx context.Context) error {
	_, err := withAdmin(ctx, a, func(ad sarama.ClusterAdmin) (struct{}, error) {
		if _, _, err := ad.DescribeCluster(); err != nil {
			return struct{}{}, fmt.Errorf("describe Kafka cluster at %v: %w", a.Brokers, err)
		}
		return struct{}{}, nil
	})
	return err
}

// Ensure creates the topic and checks its partition count.
func (a *Admin) Ensure(ctx context.Context, t Spec) (bool, error) {
	ready, err := withAdmin(ctx, a, func(ad sarama.ClusterAdmin) (bool, error) { return ensure(ad, t) })
	if errors.Is(err, errNotVisible) {
		return false, nil // asked again later (on another client if this one failed)
	}
	return ready, err
}

// errNotVisible: the topic could not be described yet; Ensure reports it not ready.
var errNotVisible = errors.New("topic not visible yet")

// errPartitions: the topic exists with another partition count.
var errPartitions = errors.New("topic exists with another partition count")

func ensure(ad sarama.ClusterAdmin, t Spec) (bool, error) {
	entries := map[string]*string{}
	for k, v := range t.Config {
		entries[k] = &v
	}
	err := ad.CreateTopic(t.Name, &sarama.TopicDetail{NumPartitions: t.Partitions, ReplicationFactor: int16(t.Replicas), ConfigEntries: entries}, false)
	var te *sarama.TopicError
	switch {
	case err == nil, errors.Is(err, sarama.ErrTopicAlreadyExists):
	case errors.As(err, &te) && te.Err == sarama.ErrTopicAlreadyExists:
	default:
		return false, fmt.Errorf("create topic %s: %w", t.Name, err)
	}
	md, err := ad.DescribeTopics([]string{t.Name})
	if err != nil {
		return false, fmt.Errorf("%w: describe topic %s: %w", errNotVisible, t.Name, err)
	}
	if len(md) != 1 || md[0].Err != sarama.ErrNoError {
		return false, nil // not visible yet
	}
	if got := int32(len(md[0].Partitions)); got != t.Partitions {
		return false, fmt.Errorf("%w: topic %s has %d partitions, want %d", errPartitions, t.Name, got, t.Partitions)
	}
	return true, nil
}

// ErrUnusableTopic marks an existing topic (spec topic.name) that cannot be used as
// it is: missing, another partition count, or compacted. Waiting will not fix it.
var ErrUnusableTopic = errors.New("unusable existing topic")

// Check confirms that an existing topic (spec topic.name) is there with the
// expected partition count and accepts keyless records; serdebench neither creates
// nor changes it.
func (a *Admin) Check(ctx context.Context, name string, partitions int32) error {
	_, err := withAdmin(ctx, a, func(ad sarama.ClusterAdmin) (struct{}, error) {
		md, err := ad.DescribeTopics([]string{name})
		if err != nil {
			return struct{}{}, fmt.Errorf("describe topic %s: %w", name, err)
		}
		if len(md) != 1 || md[0].Err != sarama.ErrNoError {
			return struct{}{}, fmt.Errorf("%w: topic %s (topic.name) does not exist: serdebench uses an existing topic as it is and does not create it", ErrUnusableTopic, name)
		}
		if got := int32(len(md[0].Partitions)); got != partitions {
			return struct{}{}, fmt.Errorf("%w: topic %s has %d partitions; set topic.partitions: %d (records are spread over the partitions the trial is told)", ErrUnusableTopic, name, got, got)
		}
		cfg, err := kafkaconn.TopicConfig(ad, name, "cleanup.policy")
		if err != nil {
			return struct{}{}, err
		}
		if p := cfg["cleanup.policy"]; strings.Contains(p, "compact") {
			return struct{}{}, fmt.Errorf("%w: topic %s is compacted (cleanup.policy=%s): it rejects serdebench's keyless records", ErrUnusableTopic, name, p)
		}
		return struct{}{}, nil
	})
	return err
}

// DeleteGroup deletes a consumer group; a missing group is not an error. (On a
// shared topic a trial's group would otherwise linger, with growing lag, until the
// broker's offsets retention.)
func (a *Admin) DeleteGroup(ctx context.Context, group string) error {
	_, err := withAdmin(ctx, a, func(ad sarama.ClusterAdmin) (struct{}, error) {
		if err := ad.DeleteConsumerGroup(group); err != nil && !errors.Is(err, sarama.ErrGroupIDNotFound) {
			return struct{}{}, fmt.Errorf("delete consumer group %s: %w", group, err)
		}
		return struct{}{}, nil
	})
	return err
}

// Delete deletes the topic.
func (a *Admin) Delete(ctx context.Context, name string) error {
	_, err := withAdmin(ctx, a, func(ad sarama.ClusterAdmin) (struct{}, error) { return struct{}{}, deleteTopic(ad, name) })
	return err
}

func deleteTopic(ad sarama.ClusterAdmin, name string) error {
	if err := ad.DeleteTopic(name); err != nil && !errors.Is(err, sarama.ErrUnknownTopicOrPartition) {
		var te *sarama.TopicError
		if errors.As(err, &te) && te.Err == sarama.ErrUnknownTopicOrPartition {
			return nil
		}
		return fmt.Errorf("delete topic %s: %w", name, err)
	}
	return nil
}
