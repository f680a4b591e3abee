package topics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Strimzi's API group and the kinds serdebench uses.
const (
	StrimziGroup   = "kafka.strimzi.io"
	KindKafka      = "Kafka"
	KindKafkaTopic = "KafkaTopic"
)

// What Strimzi's Topic Operator reads and writes on a KafkaTopic (Strimzi 0.4x–1.x).
const (
	// LabelCluster selects the Topic Operator of one Kafka cluster
	// (its STRIMZI_RESOURCE_LABELS); a KafkaTopic without it is never reconciled.
	LabelCluster = "strimzi.io/cluster"
	// Finalizer is the Topic Operator's: it deletes the topic in Kafka before it
	// removes it, so a deleted KafkaTopic stays until the Topic Operator has run.
	Finalizer = "strimzi.io/topic-operator"
	// AnnotationManaged "false" tells the Topic Operator to leave the topic alone.
	AnnotationManaged = "strimzi.io/managed"
	// AnnotationPaused "true" pauses the Topic Operator's reconciliation of it.
	AnnotationPaused = "strimzi.io/pause-reconciliation"
	// ConditionReconciliationPaused is the condition a paused KafkaTopic gets.
	ConditionReconciliationPaused = "ReconciliationPaused"
)

// NoStatusAfter is how long a KafkaTopic may go without the Topic Operator's status
// before Ensure says so (the Topic Operator answers in about a second).
const NoStatusAfter = 30 * time.Second

// ErrRefused marks a KafkaTopic the Topic Operator refused (Ready=False for the
// current spec, for a reason waiting will not fix): the trial fails with
// Strimzi's reason and message.
var ErrRefused = errors.New("refused by Strimzi's Topic Operator")

// refusals are the Kafka exceptions (org.apache.kafka.common.errors) that, reported
// by the Topic Operator as KafkaError, mean Kafka will not make the topic as
// specified: waiting will not help. Every other KafkaError (Kafka's retriable
// exceptions, an unknown server error) is waited out: the Topic Operator retries at
// its next reconciliation (a full one every 2 minutes by default), and the trial
// timeout bounds the wait.
var refusals = []string{"InvalidReplicationFactorException", "InvalidPartitionsException", "InvalidConfigurationException",
	"PolicyViolationException", "InvalidTopicException", "InvalidRequestException", "UnsupportedVersionException",
	"TopicAuthorizationException", "ClusterAuthorizationException", "TopicDeletionDisabledException"}

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

// Strimzi provisions topics as KafkaTopic resources for a Strimzi cluster; the
// Topic Operator creates them in Kafka and reports Ready.
type Strimzi struct {
	Client    client.Client
	Cluster   string
	Namespace string
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

// Ensure creates the KafkaTopic and reads what the Topic Operator made of it
// (KafkaTopicState).
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
	return KafkaTopicState(kt, time.Now())
}

// KafkaTopicState reads a KafkaTopic as Strimzi's Topic Operator leaves it: ready
// once its Ready condition is True for the current generation; ErrRefused when it
// is Ready=False for the current generation because Kafka refuses it (refusals) or
// Strimzi does (NotSupported, ResourceConflict), or when it is marked unmanaged;
// otherwise not ready, with an error saying why once it has waited
// NoStatusAfter (no Topic Operator answering, reconciliation paused, being deleted).
func KafkaTopicState(kt *unstructured.Unstructured, now time.Time) (bool, error) {
	id := kt.GetNamespace() + "/" + kt.GetName()
	if kt.GetDeletionTimestamp() != nil {
		return false, fmt.Errorf("KafkaTopic %s is being deleted (finalizers %v)", id, kt.GetFinalizers())
	}
	if kt.GetAnnotations()[AnnotationManaged] == "false" {
		return false, fmt.Errorf("KafkaTopic %s: %w: it is annotated %s: \"false\", so the Topic Operator does not create it", id, ErrRefused, AnnotationManaged)
	}
	observed, _, _ := unstructured.NestedInt64(kt.Object, "status", "observedGeneration")
	current := observed >= kt.GetGeneration()
	conds, _, _ := unstructured.NestedSlice(kt.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		reason, _ := m["reason"].(string)
		message, _ := m["message"].(string)
		switch {
		case m["type"] == ConditionReconciliationPaused && m["status"] == "True":
			return false, fmt.Errorf("KafkaTopic %s: the Topic Operator's reconciliation is paused (annotation %s)", id, AnnotationPaused)
		case m["type"] != "Ready" || !current:
		case m["status"] == "True":
			return true, nil
		case m["status"] == "False" && transient(reason, message):
			return false, fmt.Errorf("KafkaTopic %s not ready yet: %s: %s", id, reason, message)
		case m["status"] == "False":
			return false, fmt.Errorf("KafkaTopic %s: %w: %s: %s", id, ErrRefused, reason, message)
		}
	}
	created := kt.GetCreationTimestamp()
	if waited := now.Sub(created.Time); !created.IsZero() && waited >= NoStatusAfter {
		what := "no status"
		if len(conds) > 0 {
			what = fmt.Sprintf("no status for generation %d (observed %d)", kt.GetGeneration(), observed)
		}
		return false, fmt.Errorf("KafkaTopic %s has had %s from Strimzi's Topic Operator for %s: is it running, watching namespace %s and selecting %s=%s?",
			id, what, waited.Round(time.Second), kt.GetNamespace(), LabelCluster, kt.GetLabels()[LabelCluster])
	}
	return false, nil
}

// transient says whether a Ready=False condition is one the Topic Operator retries
// by itself: anything but NotSupported, ResourceConflict and a KafkaError naming
// one of refusals.
func transient(reason, message string) bool {
	switch reason {
	case "NotSupported", "ResourceConflict":
		return false
	case "KafkaError":
		for _, e := range refusals {
			if strings.Contains(message, "errors."+e) {
				return false
			}
		}
	}
	return true
}

// KafkaTopic is the KafkaTopic resource of topic t for Strimzi cluster in namespace,
// at the API version gvk names (Strimzi 1.x's v1 or 0.4x's v1beta2: the same
// spec).
func KafkaTopic(gvk schema.GroupVersionKind, namespace, cluster string, t Spec) *unstructured.Unstructured {
	kt := &unstructured.Unstructured{}
	kt.SetGroupVersionKind(gvk)
	kt.SetNamespace(namespace)
	kt.SetName(t.Name)
	labels := map[string]string{LabelCluster: cluster}
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

// Delete deletes the KafkaTopic and reports an error until it is gone: the Topic
// Operator deletes the topic in Kafka, then removes its finalizer. While it does
// not (it is stopped, or Kafka refuses), the error says what it waits for.
func (s *Strimzi) Delete(ctx context.Context, name string) error {
	kt, err := s.object(KindKafkaTopic)
	if err != nil {
		return err
	}
	key := client.ObjectKey{Namespace: s.Namespace, Name: name}
	if err := s.Client.Get(ctx, key, kt); apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return fmt.Errorf("get KafkaTopic %s/%s: %w", s.Namespace, name, err)
	}
	if kt.GetDeletionTimestamp() == nil {
		if err := s.Client.Delete(ctx, kt, client.Preconditions{UID: ptr.To(kt.GetUID())}); apierrors.IsNotFound(err) {
			return nil
		} else if err != nil {
			return fmt.Errorf("delete KafkaTopic %s/%s: %w", s.Namespace, name, err)
		}
		// Without the Topic Operator's finalizer it is gone already.
		if err := s.Client.Get(ctx, key, kt); apierrors.IsNotFound(err) {
			return nil
		}
	}
	// No elapsed time in the message: it becomes a condition, rewritten only when
	// it changes.
	return fmt.Errorf("KafkaTopic %s/%s is deleted but still there: Strimzi's Topic Operator has not yet deleted topic %s in Kafka and removed its finalizer %s (is it running?)",
		s.Namespace, name, name, Finalizer)
}
