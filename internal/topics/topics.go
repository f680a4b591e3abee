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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

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

// Strimzi's API group and the kinds serdebench uses.
const (
	StrimziGroup   = "kafka.strimzi.io"
	KindKafka      = "Kafka"
	KindKafkaTopic = "KafkaTopic"
)

// StrimziVersions are the Strimzi API versions serdebench speaks, preferred first:
// v1 (Strimzi 1.x, which removed v1beta2) and v1beta2 (Strimzi 0.x).
var StrimziVersions = []string{"v1", "v1beta2"}

// ServedStrimziGVK is the kind at the best version of StrimziVersions the cluster
// serves (from discovery, through mapper).
func ServedStrimziGVK(mapper meta.RESTMapper, kind string) (schema.GroupVersionKind, error) {
	mappings, err := mapper.RESTMappings(schema.GroupKind{Group: StrimziGroup, Kind: kind})
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("strimzi %s: is Strimzi installed? %w", kind, err)
	}
	var served []string
	for _, v := range StrimziVersions {
		for _, m := range mappings {
			if m.GroupVersionKind.Version == v {
				return m.GroupVersionKind, nil
			}
		}
	}
	for _, m := range mappings {
		served = append(served, m.GroupVersionKind.Version)
	}
	return schema.GroupVersionKind{}, fmt.Errorf("strimzi %s is served at %s/%v; serdebench speaks %s/%v", kind, StrimziGroup, served, StrimziGroup, StrimziVersions)
}

// object returns an empty object of kind at the served version.
func (s *Strimzi) object(kind string) (*unstructured.Unstructured, error) {
	gvk, err := ServedStrimziGVK(s.Client.RESTMapper(), kind)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// Broker is what a run records of the Kafka cluster.
type Broker struct {
	// Release is the Kafka release: as Strimzi's Kafka resource reports (status)
	// or requests (spec) it, else franz-go's guess from the API versions (Kafka
	// does not send its release over the protocol), e.g. "v4.1" or "at least v4.1".
	Release string
	// APIVersions are the brokers' count and their Produce and Fetch API versions
	// (empty for Strimzi, which is not asked).
	APIVersions string
}

// Broker reads the Kafka resource's reported (status) or requested (spec) version.
func (s *Strimzi) Broker(ctx context.Context) (Broker, error) {
	k, err := s.object(KindKafka)
	if err != nil {
		return Broker{}, err
	}
	if err := s.Client.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: s.Cluster}, k); err != nil {
		return Broker{}, fmt.Errorf("get Kafka %s/%s: %w", s.Namespace, s.Cluster, err)
	}
	for _, path := range [][]string{{"status", "kafkaVersion"}, {"spec", "kafka", "version"}} {
		if v, ok, _ := unstructured.NestedString(k.Object, path...); ok && v != "" {
			return Broker{Release: v}, nil
		}
	}
	return Broker{}, fmt.Errorf("kafka %s/%s declares no version", s.Namespace, s.Cluster)
}

// Broker asks a broker for its API versions and guesses the release from them.
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
	return Broker{Release: kversion.FromApiVersionsResponse(keys).VersionGuess(),
		APIVersions: fmt.Sprintf("%d broker(s), produce v%d, fetch v%d", len(brokers), produce, fetch)}, nil
}

// Strimzi provisions topics as KafkaTopic resources for a Strimzi cluster; the
// Topic Operator creates them in Kafka and reports Ready.
type Strimzi struct {
	Client    client.Client
	Cluster   string
	Namespace string
}

// Ensure creates the KafkaTopic and reads its Ready condition.
func (s *Strimzi) Ensure(ctx context.Context, t Spec) (bool, error) {
	kt, err := s.object(KindKafkaTopic)
	if err != nil {
		return false, err
	}
	err = s.Client.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: t.Name}, kt)
	if apierrors.IsNotFound(err) {
		kt = KafkaTopic(kt.GroupVersionKind(), s.Namespace, s.Cluster, t)
		if err := s.Client.Create(ctx, kt); err != nil && !apierrors.IsAlreadyExists(err) {
			return false, fmt.Errorf("create KafkaTopic %s/%s: %w", s.Namespace, t.Name, err)
		}
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("get KafkaTopic %s/%s: %w", s.Namespace, t.Name, err)
	}
	conds, _, _ := unstructured.NestedSlice(kt.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != "Ready" {
			continue
		}
		if m["status"] == "True" {
			return true, nil
		}
		if m["status"] == "False" {
			return false, fmt.Errorf("KafkaTopic %s/%s not ready: %v: %v", s.Namespace, t.Name, m["reason"], m["message"])
		}
	}
	return false, nil
}

// KafkaTopic is the KafkaTopic resource of topic t for Strimzi cluster in namespace,
// at the API version gvk names (Strimzi 1.x's v1 or 0.4x's v1beta2: the same
// spec).
func KafkaTopic(gvk schema.GroupVersionKind, namespace, cluster string, t Spec) *unstructured.Unstructured {
	kt := &unstructured.Unstructured{}
	kt.SetGroupVersionKind(gvk)
	kt.SetNamespace(namespace)
	kt.SetName(t.Name)
	labels := map[string]string{"strimzi.io/cluster": cluster}
	for k, v := range t.Labels {
		labels[k] = v
	}
	kt.SetLabels(labels)
	spec := map[string]any{"topicName": t.Name, "partitions": int64(t.Partitions), "replicas": int64(t.Replicas)}
	if len(t.Config) > 0 {
		cfg := map[string]any{}
		for k, v := range t.Config {
			cfg[k] = v
		}
		spec["config"] = cfg
	}
	kt.Object["spec"] = spec
	return kt
}

// Reachable checks that the API server serves Strimzi's KafkaTopic kind.
func (s *Strimzi) Reachable(context.Context) error {
	_, err := s.object(KindKafkaTopic)
	return err
}

// Delete deletes the KafkaTopic; the Topic Operator deletes the topic.
func (s *Strimzi) Delete(ctx context.Context, name string) error {
	kt, err := s.object(KindKafkaTopic)
	if err != nil {
		return err
	}
	kt.SetNamespace(s.Namespace)
	kt.SetName(name)
	if err := s.Client.Delete(ctx, kt); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete KafkaTopic %s/%s: %w", s.Namespace, name, err)
	}
	return nil
}

// Admin provisions topics through the Kafka Admin API.
type Admin struct {
	Brokers  []string
	Security kafkaconn.Security
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

// withAdmin runs f with a fresh admin client, bounded by ctx (sarama's calls take
// no context), and closes the client after.
func withAdmin[T any](ctx context.Context, a *Admin, f func(sarama.ClusterAdmin) (T, error)) (T, error) {
	return kafkaconn.Bounded(ctx, func() (T, error) {
		ad, err := a.admin()
		if err != nil {
			var zero T
			return zero, err
		}
		defer func() { _ = ad.Close() }()
		return f(ad)
	})
}

// Reachable connects to the brokers (sarama's admin client reads the cluster's
// metadata) and asks nothing else.
func (a *Admin) Reachable(ctx context.Context) error {
	_, err := withAdmin(ctx, a, func(sarama.ClusterAdmin) (struct{}, error) { return struct{}{}, nil })
	return err
}

// Ensure creates the topic and checks its partition count.
func (a *Admin) Ensure(ctx context.Context, t Spec) (bool, error) {
	return withAdmin(ctx, a, func(ad sarama.ClusterAdmin) (bool, error) { return ensure(ad, t) })
}

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
	if err != nil || len(md) != 1 {
		return false, nil // not visible yet
	}
	if md[0].Err != sarama.ErrNoError {
		return false, nil
	}
	if got := int32(len(md[0].Partitions)); got != t.Partitions {
		return false, fmt.Errorf("topic %s exists with %d partitions, want %d", t.Name, got, t.Partitions)
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
