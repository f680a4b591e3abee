package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/internal/topics"
	"github.com/serdebench/serdebench/workers/kafkaconn"
)

// admin is the Admin API client for the experiment's brokers (the workers' bootstrap
// address, with the experiment's TLS and SASL settings).
func (r *ExperimentReconciler) admin(ctx context.Context, x *serdebenchv1.SerializationExperiment) (*topics.Admin, error) {
	sec, err := r.security(ctx, x)
	if err != nil {
		return nil, err
	}
	return &topics.Admin{Brokers: build.Brokers(build.Bootstrap(x)), Security: sec, Pool: &r.admins}, nil
}

// provisioner returns the topic provisioner for the experiment's Kafka.
func (r *ExperimentReconciler) provisioner(ctx context.Context, x *serdebenchv1.SerializationExperiment) (topics.Provisioner, error) {
	if r.Topics != nil {
		return r.Topics(ctx, x)
	}
	k := x.Spec.Kafka
	if k.Strimzi != nil {
		return &topics.Strimzi{Client: r.Client, Cluster: k.Strimzi.ClusterName, Namespace: build.StrimziNamespace(x)}, nil
	}
	// Without Strimzi the workers' bootstrap is spec.kafka.bootstrapServers.
	a, err := r.admin(ctx, x)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return a, nil
}

// security reads TLS and SASL material from the experiment's Secrets, uncached: a
// cached read would start a cluster-wide Secret informer that the operator's RBAC
// (get only) cannot list or watch.
func (r *ExperimentReconciler) security(ctx context.Context, x *serdebenchv1.SerializationExperiment) (kafkaconn.Security, error) {
	var s kafkaconn.Security
	k := x.Spec.Kafka
	if k.TLS != nil {
		s.TLS, s.InsecureSkipVerify = true, k.TLS.InsecureSkipVerify
		if ref := k.TLS.CASecretRef; ref != nil {
			v, err := r.secretValue(ctx, x.Namespace, ref.Name, ref.Key)
			if err != nil {
				return s, err
			}
			s.CAPEM = v
		}
	}
	if k.SASL != nil {
		s.SASLMechanism = string(k.SASL.Mechanism)
		u, err := r.secretValue(ctx, x.Namespace, k.SASL.SecretRef.Name, "username")
		if err != nil {
			return s, err
		}
		p, err := r.secretValue(ctx, x.Namespace, k.SASL.SecretRef.Name, "password")
		if err != nil {
			return s, err
		}
		s.Username, s.Password = string(u), string(p)
	}
	return s, nil
}

func (r *ExperimentReconciler) secretValue(ctx context.Context, ns, name, key string) ([]byte, error) {
	sec := &corev1.Secret{}
	if err := r.reader().Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, sec); err != nil {
		return nil, fmt.Errorf("secret %s/%s: %w", ns, name, err)
	}
	v, ok := sec.Data[key]
	if !ok {
		return nil, fmt.Errorf("secret %s/%s has no key %q", ns, name, key)
	}
	return v, nil
}

// reader reads uncached (the API reader when the manager provides one).
func (r *ExperimentReconciler) reader() client.Reader {
	if r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
}

func (r *ExperimentReconciler) topicSpec(x *serdebenchv1.SerializationExperiment, t trial.Trial, name string) topics.Spec {
	return topics.Spec{Name: name, Partitions: t.Partitions, Replicas: t.Replicas, Config: t.TopicConfig, Labels: build.TrialLabels(x, t)}
}
