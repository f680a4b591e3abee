//go:build e2e

// Package e2e tests serdebench as users run it: the Helm chart installed into a real
// cluster, the operator as a pod under the chart's own namespaced RBAC, real worker
// pods talking to a real broker, a real prometheus-operator-managed Prometheus
// scraping them through the chart's PodMonitor. `make test-e2e` (part of `make test`)
// prepares all of it with hack/stack/stack.sh and passes its .state/stack.env here.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/v1alpha1"
)

const (
	namespace = "sb-e2e"
	release   = "sb-e2e"
	// fullname is the chart's name for the release's objects (Deployment, ServiceAccount).
	fullname = release + "-serdebench-operator"
)

// stack is what hack/stack/stack.sh prepared.
var stack struct {
	kubeconfig, kubectl, helm                       string
	managerImage, workerImage, jvmWorkerImage       string
	kafka, kafkaSASL, kafkaTLS, kafkaCA, prometheus string
	// registry is a schema registry pods reach (its Confluent-compatible API).
	registry string
}

var (
	k8s       client.Client
	clientset *kubernetes.Clientset
	repo      string
)

func TestMain(m *testing.M) {
	if err := setup(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e setup: %v\n", err)
		os.Exit(1)
	}
	// The release stays installed: the next run upgrades it, and its PodMonitor is
	// already in Prometheus's configuration (loading a new one takes up to 3 minutes).
	os.Exit(m.Run())
}

func mustEnv(name string) (string, error) {
	v := os.Getenv(name)
	if v == "" {
		return "", fmt.Errorf("%s is not set: run `make test-e2e` (it prepares the cluster, broker and Prometheus and sets it)", name)
	}
	return v, nil
}

func setup() error {
	var err error
	for _, e := range []struct {
		dst  *string
		name string
	}{
		{&stack.kubeconfig, "KUBECONFIG"}, {&stack.kubectl, "SERDEBENCH_KUBECTL"}, {&stack.helm, "SERDEBENCH_HELM"},
		{&stack.managerImage, "MANAGER_IMAGE"}, {&stack.workerImage, "WORKER_IMAGE"}, {&stack.jvmWorkerImage, "JVM_WORKER_IMAGE"},
		{&stack.kafka, "SERDEBENCH_STACK_KAFKA"}, {&stack.kafkaSASL, "SERDEBENCH_STACK_KAFKA_SASL"},
		{&stack.kafkaTLS, "SERDEBENCH_STACK_KAFKA_TLS"}, {&stack.kafkaCA, "SERDEBENCH_STACK_KAFKA_CA"},
		{&stack.prometheus, "SERDEBENCH_STACK_PROMETHEUS_URL"}, {&stack.registry, "SERDEBENCH_STACK_REGISTRY"},
	} {
		if *e.dst, err = mustEnv(e.name); err != nil {
			return err
		}
	}
	if repo, err = filepath.Abs(".."); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", stack.kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.Timeout = 30 * time.Second
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	if k8s, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return fmt.Errorf("client: %w", err)
	}
	if clientset, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	return install()
}

// install installs (or upgrades) the chart as a user would, with the images built
// for this commit, by digest, through the same script as `make demo`.
func install() error {
	// The workers' default 20 s metrics grace: with 5 s, 1 in ~20 short trials went
	// unscraped.
	args := []string{release, namespace, "--set", "manager.pollInterval=1s"}
	if os.Getenv("SERDEBENCH_STACK_BROKERS") != "" {
		// The fault tests' PodChaos selects the brokers' pods in their namespace.
		args = append(args, "--set", "rbac.faultTargetNamespaces={"+brokersNamespace+"}")
	}
	cmd := exec.Command(filepath.Join(repo, "hack/stack/install.sh"), args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("hack/stack/install.sh: %w\n%s", err, out)
	}
	// Strimzi's real Topic Operator for cluster my-cluster, watching this namespace
	// (the same script as `make demo`).
	if _, err := mustEnv("STRIMZI_IMAGE"); err != nil {
		return err
	}
	cmd = exec.Command(filepath.Join(repo, "hack/strimzi/deploy.sh"), "up", namespace, stack.kafka, strimziCluster)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("hack/strimzi/deploy.sh: %w\n%s", err, out)
	}
	return nil
}

// splitImage splits repository:tag@sha256:... into its parts.
func splitImage(ref string) (repository, tag, digest string) {
	name, digest, _ := strings.Cut(ref, "@")
	i := strings.LastIndex(name, ":")
	if i < 0 || strings.Contains(name[i:], "/") {
		return name, "", digest
	}
	return name[:i], name[i+1:], digest
}

func kubectlIn(stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, stack.kubectl, append([]string{"--kubeconfig", stack.kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// operatorPods are the chart's manager pods.
func operatorPods(t *testing.T) []corev1.Pod {
	t.Helper()
	var pods corev1.PodList
	if err := k8s.List(context.Background(), &pods, client.InNamespace(namespace),
		client.MatchingLabels{"app.kubernetes.io/instance": release, "app.kubernetes.io/component": "manager"}); err != nil {
		t.Fatalf("list operator pods: %v", err)
	}
	return pods.Items
}

// checkOperator asserts that the operator runs under the chart's ServiceAccount and
// that its whole log (from its start, so including cache sync) has no RBAC denial and
// no cache that failed to sync: the failures a namespaced RBAC gets wrong show up
// there first.
func checkOperator(t *testing.T) {
	t.Helper()
	pods := operatorPods(t)
	if len(pods) == 0 {
		t.Fatal("no operator pod")
	}
	for _, p := range pods {
		if p.Spec.ServiceAccountName != fullname {
			t.Errorf("operator pod %s runs as ServiceAccount %q, want the chart's %q", p.Name, p.Spec.ServiceAccountName, fullname)
		}
		if p.Status.Phase != corev1.PodRunning {
			continue
		}
		raw, err := clientset.CoreV1().Pods(namespace).GetLogs(p.Name, &corev1.PodLogOptions{}).DoRaw(context.Background())
		if err != nil {
			t.Fatalf("operator log: %v", err)
		}
		for _, bad := range []string{"forbidden", "Forbidden", "failed to list", "Failed to watch", "timed out waiting for cache",
			"failed waiting for", "WaitForCacheSync", "Unauthorized"} {
			for _, line := range strings.Split(string(raw), "\n") {
				if strings.Contains(line, bad) {
					t.Errorf("operator pod %s logged %q:\n%s", p.Name, bad, line)
					break
				}
			}
		}
	}
}

// jobsOf are the Jobs of one experiment.
func jobsOf(t *testing.T, experiment string) []batchv1.Job {
	t.Helper()
	var jobs batchv1.JobList
	if err := k8s.List(context.Background(), &jobs, client.InNamespace(namespace), client.MatchingLabels{"serdebench.io/experiment": experiment}); err != nil {
		t.Fatalf("list jobs: %v", err)
	}
	return jobs.Items
}

// podsOf are the worker pods of one experiment.
func podsOf(t *testing.T, experiment string) []corev1.Pod {
	t.Helper()
	var pods corev1.PodList
	if err := k8s.List(context.Background(), &pods, client.InNamespace(namespace), client.MatchingLabels{"serdebench.io/experiment": experiment}); err != nil {
		t.Fatalf("list pods: %v", err)
	}
	return pods.Items
}
