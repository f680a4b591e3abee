package controllers

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/controllers/promquery"
	"github.com/serdebench/serdebench/workers/summary"
	"github.com/serdebench/serdebench/workers/usage"
)

// brokerCPUWait bounds how long after the producers' window the operator waits
// for cAdvisor's sample after it: the kubelet refreshes a container's stats every
// 10–20 s, Prometheus scrapes them after that (AKS's managed Prometheus every
// 30 s, and its ingestion adds a delay).
const brokerCPUWait = 2 * time.Minute

// maxBrokerPodsListed bounds environment.brokerCPU.pods (all are read).
const maxBrokerPodsListed = 8

// errBrokerCPUNotYet asks collect to come back: the sample after the window is
// not in Prometheus yet.
var errBrokerCPUNotYet = errors.New("broker CPU: waiting for cAdvisor's sample after the window")

// brokerCPU reads the broker pods' CPU over the producers' window (kafka.brokerPods,
// or a Strimzi cluster's broker pods) from the kubelets' cAdvisor series in
// Prometheus into the trial's usage. errBrokerCPUNotYet while the sample after
// the window may still come; anything else that keeps it from being read is a
// warning on the trial, since the rest of the result stands without it.
func (r *ExperimentReconciler) brokerCPU(ctx context.Context, x *serdebenchv1.SerializationExperiment, sums []*summary.Summary, m *summary.Result, now time.Time) (*serdebenchv1.BrokerCPU, error) {
	if r.Prometheus == nil || m.Usage == nil || m.Usage.Broker != nil || m.Records <= 0 {
		return nil, nil
	}
	ns, labels, ok := build.BrokerPods(x)
	if !ok {
		return nil, nil
	}
	warn := func(format string, a ...any) (*serdebenchv1.BrokerCPU, error) {
		m.Warnings = append(m.Warnings, "broker CPU not read: "+fmt.Sprintf(format, a...))
		return nil, nil
	}
	list := &corev1.PodList{}
	if err := r.reader().List(ctx, list, client.InNamespace(ns), client.MatchingLabels(labels)); err != nil {
		return warn("list broker pods: %v", err)
	}
	pods := make([]string, 0, len(list.Items))
	for _, p := range list.Items {
		pods = append(pods, p.Name)
	}
	if len(pods) == 0 {
		// A fact of the setup, the same for every trial: said once, in the
		// environment, not as each trial's warning.
		sel := k8slabels.SelectorFromSet(labels).String()
		if len(sel) > 200 { // the field holds 512 characters; a selector of many labels is cut
			sel = sel[:197] + "..."
		}
		return &serdebenchv1.BrokerCPU{Namespace: ns, NotRead: fmt.Sprintf("no pod in namespace %s matches %s: the brokers do not run as pods there, "+
			"so their CPU cannot be read from cAdvisor (kafka.brokerPods names them when they do)", ns, sel)}, nil
	}
	sort.Strings(pods)
	start, end := producerWindow(sums)
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cpu, resolution, err := r.Prometheus.ContainerCPU(qctx, ns, pods, start, end, now)
	switch {
	case errors.Is(err, promquery.ErrNotYet) && now.Before(end.Add(brokerCPUWait)):
		return nil, errBrokerCPUNotYet
	case err != nil:
		return warn("%v", err)
	}
	m.SetBrokerUsage(&usage.Window{CPUSeconds: cpu, Seconds: end.Sub(start).Seconds()})
	if resolution > end.Sub(start)/3 {
		m.Warnings = append(m.Warnings, fmt.Sprintf("WindowTooShort: the brokers' CPU comes from cAdvisor samples %s apart, interpolated at the window's bounds, and the window is %s: raise durationSeconds (or records) to several times that",
			resolution.Round(time.Second), end.Sub(start).Round(time.Second)))
	}
	return &serdebenchv1.BrokerCPU{Namespace: ns, Pods: pods[:min(len(pods), maxBrokerPodsListed)], ResolutionSeconds: int32((resolution + time.Second - 1) / time.Second)}, nil
}

// mergeBrokerCPU keeps every trial's broker pods (up to the cap) and the coarsest
// resolution.
func mergeBrokerCPU(have, got *serdebenchv1.BrokerCPU) *serdebenchv1.BrokerCPU {
	switch {
	case got == nil:
		return have
	case have == nil || have.Namespace != got.Namespace || have.NotRead != "" && got.NotRead == "":
		return got.DeepCopy()
	case got.NotRead != "":
		return have // pods read once are worth more than a trial that found none
	}
	out := have.DeepCopy()
	out.Pods = mergeSorted(have.Pods, got.Pods)
	out.Pods = out.Pods[:min(len(out.Pods), maxBrokerPodsListed)]
	out.ResolutionSeconds = max(have.ResolutionSeconds, got.ResolutionSeconds)
	return out
}
