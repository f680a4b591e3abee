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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
	managerImage, workerImage                       string
	kafka, kafkaSASL, kafkaTLS, kafkaCA, prometheus string
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
		{&stack.managerImage, "MANAGER_IMAGE"}, {&stack.workerImage, "WORKER_IMAGE"},
		{&stack.kafka, "SERDEBENCH_STACK_KAFKA"}, {&stack.kafkaSASL, "SERDEBENCH_STACK_KAFKA_SASL"},
		{&stack.kafkaTLS, "SERDEBENCH_STACK_KAFKA_TLS"}, {&stack.kafkaCA, "SERDEBENCH_STACK_KAFKA_CA"},
		{&stack.prometheus, "SERDEBENCH_STACK_PROMETHEUS_URL"},
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

// install creates the restricted-PSS namespace and installs (or upgrades) the chart
// as a user would, with the images built for this commit, by digest.
func install() error {
	ns := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q,"labels":{`+
		`"pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"restricted"}}}`, namespace)
	if out, err := kubectlIn(ns, "apply", "-f", "-"); err != nil {
		return fmt.Errorf("namespace: %w\n%s", err, out)
	}
	// CRDs kept from another release (the demo's) are adopted, as Helm allows for
	// resources annotated with the adopting release.
	for _, crd := range []string{"serializationexperiments.serdebench.io", "serializationresults.serdebench.io", "serializationschedules.serdebench.io"} {
		if _, err := kubectlIn("", "get", "crd", crd); err != nil {
			continue
		}
		for _, args := range [][]string{
			{"annotate", "--overwrite", "crd", crd, "meta.helm.sh/release-name=" + release, "meta.helm.sh/release-namespace=" + namespace},
			{"label", "--overwrite", "crd", crd, "app.kubernetes.io/managed-by=Helm"},
		} {
			if out, err := kubectlIn("", args...); err != nil {
				return fmt.Errorf("adopt %s: %w\n%s", crd, err, out)
			}
		}
	}
	args := []string{"upgrade", "--install", release, filepath.Join(repo, "charts/serdebench-operator"), "-n", namespace,
		"--wait", "--timeout", "3m", "--set", "podMonitor.enabled=true", "--set", "prometheus.url=" + stack.prometheus,
		"--set", "manager.pollInterval=1s"} // the workers' default 20 s metrics grace: with 5 s, 1 in ~20 short trials went unscraped
	for key, ref := range map[string]string{"image": stack.managerImage, "workerImage": stack.workerImage} {
		repository, tag, digest := splitImage(ref)
		args = append(args, "--set", key+".repository="+repository, "--set", key+".tag="+tag, "--set", key+".digest="+digest)
	}
	args = append(args, strings.Fields(os.Getenv("SERDEBENCH_HELM_ARGS"))...)
	// An earlier run killed mid-upgrade leaves the release pending, which blocks the
	// next upgrade: roll it back first.
	if out, err := helmCmd("status", release, "-n", namespace, "-o", "json"); err == nil {
		var st struct {
			Info    struct{ Status string } `json:"info"`
			Version int                     `json:"version"`
		}
		if json.Unmarshal([]byte(out), &st) == nil && strings.HasPrefix(st.Info.Status, "pending") {
			undo := []string{"rollback", release, "-n", namespace, "--wait"}
			if st.Version <= 1 {
				undo = []string{"uninstall", release, "-n", namespace, "--wait"}
			}
			if out, err := helmCmd(undo...); err != nil {
				return fmt.Errorf("release %s is %s; helm %s: %w\n%s", release, st.Info.Status, undo[0], err, out)
			}
		}
	}
	before, upgraded := podMonitorVersion(), time.Now()
	if out, err := helmCmd(args...); err != nil {
		return fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	if podMonitorVersion() == before {
		upgraded = time.Time{} // unchanged: what Prometheus has loaded is current
	}
	return waitScrapeConfig(podMonitorJob, upgraded, 4*time.Minute)
}

// podMonitorVersion is the resourceVersion of the chart's PodMonitor, "" if absent.
func podMonitorVersion() string {
	pm := &unstructured.Unstructured{}
	pm.SetAPIVersion("monitoring.coreos.com/v1")
	pm.SetKind("PodMonitor")
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: fullname + "-workers"}, pm); err != nil {
		return ""
	}
	return pm.GetResourceVersion()
}

// podMonitorJob is the scrape job prometheus-operator makes of the chart's PodMonitor.
const podMonitorJob = "podMonitor/" + namespace + "/" + fullname + "-workers/"

// waitScrapeConfig waits until Prometheus has loaded a scrape job, and reloaded its
// configuration since `changed` (the PodMonitor's last change; zero if none):
// trials that start earlier would not be scraped, or a reload mid-trial would restart
// the job's scrape pool and miss short-lived workers. prometheus-operator renders
// the job into a Secret within a second and kubelet updates the mounted copy within
// seconds, but the config reloader only notices on its 3-minute poll (measured here:
// 172 s).
func waitScrapeConfig(job string, changed time.Time, timeout time.Duration) error {
	hc := &http.Client{Timeout: 5 * time.Second}
	get := func(path string) (string, error) {
		resp, err := hc.Get(stack.prometheus + path)
		if err != nil {
			return "", err
		}
		defer func() { _ = resp.Body.Close() }()
		body, err := io.ReadAll(resp.Body)
		return string(body), err
	}
	deadline := time.Now().Add(timeout)
	for {
		cfg, err := get("/api/v1/status/config")
		loaded := err == nil && strings.Contains(cfg, job)
		if loaded && !changed.IsZero() {
			var info struct {
				Data struct {
					LastConfigTime time.Time `json:"lastConfigTime"`
				} `json:"data"`
			}
			var raw string
			if raw, err = get("/api/v1/status/runtimeinfo"); err == nil {
				err = json.Unmarshal([]byte(raw), &info)
			}
			loaded = err == nil && !info.Data.LastConfigTime.Before(changed.Truncate(time.Second))
		}
		if loaded {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("prometheus at %s has not loaded scrape job %s after %s: %w", stack.prometheus, job, timeout, err)
			}
			return fmt.Errorf("prometheus at %s has not loaded scrape job %s (changed %s) after %s", stack.prometheus, job, changed, timeout)
		}
		time.Sleep(time.Second)
	}
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

func helmCmd(args ...string) (string, error) {
	cmd := exec.Command(stack.helm, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+stack.kubeconfig, "HELM_CACHE_HOME="+filepath.Join(repo, ".state/helm/cache"),
		"HELM_CONFIG_HOME="+filepath.Join(repo, ".state/helm/config"), "HELM_DATA_HOME="+filepath.Join(repo, ".state/helm/data"))
	out, err := cmd.CombinedOutput()
	return string(out), err
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
