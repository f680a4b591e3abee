package controllers_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

const chartDir = "../charts/serdebench-operator"

// helm is the pinned helm the Makefile builds (SERDEBENCH_HELM); without it the
// deploy tests fail rather than skip.
func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	bin := os.Getenv("SERDEBENCH_HELM")
	if bin == "" {
		t.Fatal("SERDEBENCH_HELM is not set: run through `make test`, which builds the pinned helm")
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	return string(out), err
}

// kubeVersion is the Kubernetes version the chart is rendered for: the envtest
// apiserver's own (the current line, or the oldest AKS minor under
// make test-envtest-oldest), without the v.
func kubeVersion(t *testing.T) string {
	t.Helper()
	if apiserverVersion == "" {
		t.Fatal("the apiserver's version was not read (TestMain)")
	}
	return strings.TrimPrefix(apiserverVersion, "v")
}

// dryRun applies manifests with server-side dry-run as a cluster admin and fails on
// any error or Pod Security warning.
func dryRun(t *testing.T, manifests string, args ...string) string {
	t.Helper()
	args = append([]string{"--kubeconfig", adminKubeconfig(t, "deployer"), "apply", "--server-side",
		"--field-manager=deploy-test", "--force-conflicts", "--dry-run=server", "-f", "-"}, args...)
	cmd := exec.Command(kubectlPath(t), args...)
	cmd.Stdin = strings.NewReader(manifests)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("server-side dry-run: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "would violate PodSecurity") {
		t.Fatalf("rendered workloads break the restricted Pod Security Standard:\n%s", out)
	}
	return string(out)
}

// kinds counts the rendered objects by kind and namespace ("Role/ns").
func kinds(t *testing.T, manifests string) map[string]int {
	t.Helper()
	n := map[string]int{}
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(manifests), 4096)
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); err != nil {
			if err.Error() == "EOF" {
				return n
			}
			t.Fatalf("decode rendered manifests: %v", err)
		}
		if u.Object == nil {
			continue
		}
		n[u.GetKind()]++
		if u.GetNamespace() != "" {
			n[u.GetKind()+"/"+u.GetNamespace()]++
		}
	}
}

// namespaceNamed creates a restricted-PSS namespace (warnings on) with a fixed name.
func namespaceNamed(t *testing.T, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": "restricted",
		"pod-security.kubernetes.io/warn":    "restricted",
	}}}
	if err := k8s.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// TestChart lints the chart, renders it with the value combinations users choose
// between, checks what each renders, and applies every rendering to the test API
// server with server-side dry-run (CRDs, RBAC, the Deployment under restricted Pod
// Security, and the prometheus-operator objects against their real CRDs).
func TestChart(t *testing.T) {
	if out, err := helm(t, "lint", "--strict", chartDir, "--kube-version", kubeVersion(t)); err != nil {
		t.Fatalf("helm lint: %v\n%s", err, out)
	}
	namespaceNamed(t, "sb-chart")
	namespaceNamed(t, "sb-chart-b")
	namespaceNamed(t, "sb-kafka")
	namespaceNamed(t, "sb-brokers")
	digest := "sha256:" + strings.Repeat("ab", 32)
	cases := []struct {
		name string
		set  []string
		want map[string]int
	}{
		{"defaults", nil, map[string]int{
			"CustomResourceDefinition": 3, "Role/sb-chart": 1, "RoleBinding/sb-chart": 1, "ClusterRole": 0,
			"Deployment/sb-chart": 1, "ServiceAccount/sb-chart": 1, "PodMonitor": 0}},
		{"cluster-wide with monitoring", []string{"rbac.clusterWide=true", "podMonitor.enabled=true", "serviceMonitor.enabled=true",
			"prometheusRule.enabled=true", "prometheus.url=http://prometheus.monitoring:9090", "image.digest=" + digest,
			"workerImage.digest=" + digest, "grafanaDashboard.enabled=true"}, map[string]int{
			"ClusterRole": 1, "ClusterRoleBinding": 1, "Role": 0, "PodMonitor/sb-chart": 1, "ServiceMonitor/sb-chart": 1,
			"PrometheusRule/sb-chart": 1, "Service/sb-chart": 1, "ConfigMap/sb-chart": 1}},
		{"several namespaces and Strimzi elsewhere", []string{"rbac.watchNamespaces={sb-chart-b}", "rbac.strimziNamespaces={sb-kafka}",
			"crds.enabled=false", "podMonitor.enabled=true"}, map[string]int{
			"CustomResourceDefinition": 0, "Role/sb-chart-b": 1, "Role/sb-chart": 1, "Role/sb-kafka": 1, "RoleBinding": 3, "PodMonitor/sb-chart": 1}},
		// AKS's managed Prometheus reads its own group, with its label limits; the
		// operator queries the workspace as its workload identity.
		{"AKS managed Prometheus", []string{"monitorsAPIGroup=azmonitoring.coreos.com", "podMonitor.enabled=true", "serviceMonitor.enabled=true",
			"prometheus.url=https://sb-ws.westeurope.prometheus.monitor.azure.com", "prometheus.auth=azureWorkloadIdentity",
			"prometheus.azureClientID=6f0e7b8a-1c2d-4e5f-8a9b-0c1d2e3f4a5b"},
			map[string]int{"PodMonitor/sb-chart": 1, "ServiceMonitor/sb-chart": 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"template", "sb", chartDir, "-n", "sb-chart", "--kube-version", kubeVersion(t)}
			for _, s := range c.set {
				args = append(args, "--set", s)
			}
			out, err := helm(t, args...)
			if err != nil {
				t.Fatalf("helm template: %v\n%s", err, out)
			}
			got := kinds(t, out)
			for k, n := range c.want {
				if got[k] != n {
					t.Errorf("%s: rendered %d, want %d (all: %v)", k, got[k], n, got)
				}
			}
			if strings.Contains(out, ":latest") {
				t.Errorf("rendering refers to a :latest image")
			}
			// A namespaced release's PodMonitor selects its namespaces only (two releases
			// must not scrape a worker twice); a cluster-wide one, every namespace.
			if clusterWide := slices.Contains(c.set, "rbac.clusterWide=true"); got["PodMonitor"] > 0 &&
				strings.Contains(out, "any: true") != clusterWide {
				_, pm, _ := strings.Cut(out, "kind: PodMonitor")
				t.Errorf("PodMonitor namespaceSelector (cluster-wide %v):\n%s", clusterWide, pm)
			}
			if strings.Contains(c.name, "several") && !strings.Contains(out, "matchNames:\n    - sb-chart-b") {
				t.Errorf("PodMonitor does not select the watched namespace sb-chart-b")
			}
			monitors := got["PodMonitor"] + got["ServiceMonitor"]
			if azure := slices.Contains(c.set, "monitorsAPIGroup=azmonitoring.coreos.com"); monitors > 0 &&
				((strings.Count(out, "apiVersion: azmonitoring.coreos.com/v1") == monitors) != azure ||
					(strings.Count(out, "labelLimit: 63") == monitors) != azure) {
				t.Errorf("monitors (AKS %v): want every one in its group, with Azure's label limits on AKS only:\n%s", azure, out)
			}
			if strings.Contains(c.name, "AKS") {
				for _, want := range []string{"azure.workload.identity/use: \"true\"", "azure.workload.identity/client-id: 6f0e7b8a-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
					"--prometheus-auth=azure-workload-identity"} {
					if !strings.Contains(out, want) {
						t.Errorf("AKS rendering lacks %s", want)
					}
				}
			}
			res := dryRun(t, out)
			t.Logf("%d objects accepted:\n%s", strings.Count(res, "(server dry run)"), res)
		})
	}
	// The release namespace gets only leader election's lease and events when
	// experiments run elsewhere; Strimzi's namespace only KafkaTopics, Kafkas,
	// faults on its brokers and reading their pods; a fault target's namespace only
	// fault objects and reading pods.
	out, err := helm(t, "template", "sb", chartDir, "-n", "sb-chart", "--kube-version", kubeVersion(t), "--set", "rbac.watchNamespaces={sb-chart-b}",
		"--set", "rbac.strimziNamespaces={sb-kafka}", "--set", "rbac.faultTargetNamespaces={sb-brokers}", "--show-only", "templates/rbac.yaml")
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, out)
	}
	checked := 0
	for _, doc := range strings.Split(out, "\n---") {
		switch {
		case strings.Contains(doc, "\nkind: Role\n") && strings.Contains(doc, "namespace: sb-chart\n"):
			checked++
			if strings.Contains(doc, "jobs") || strings.Contains(doc, "secrets") || !strings.Contains(doc, "leases") {
				t.Errorf("release-namespace Role is not leader election only:\n%s", doc)
			}
		case strings.Contains(doc, "\nkind: Role\n") && strings.Contains(doc, "namespace: sb-kafka\n"):
			checked++
			if strings.Contains(doc, "jobs") || strings.Contains(doc, "secrets") || !strings.Contains(doc, "kafkatopics") || !strings.Contains(doc, "podchaos") || !strings.Contains(doc, "- pods\n") {
				t.Errorf("Strimzi-namespace Role is not KafkaTopics, faults on its brokers and their pods only:\n%s", doc)
			}
		case strings.Contains(doc, "\nkind: Role\n") && strings.Contains(doc, "namespace: sb-brokers\n"):
			// Chaos Mesh's security mode: a fault's creator needs its kind there.
			checked++
			if strings.Contains(doc, "jobs") || strings.Contains(doc, "secrets") || strings.Contains(doc, "kafkatopics") || !strings.Contains(doc, "podchaos") || !strings.Contains(doc, "networkchaos") || !strings.Contains(doc, "- pods\n") {
				t.Errorf("fault-target Role is not fault objects and pods only:\n%s", doc)
			}
		}
	}
	if checked != 3 {
		t.Errorf("found %d of the 3 narrowed Roles in:\n%s", checked, out)
	}
	// Mutable tags and malformed values are refused with a message that says why.
	for _, bad := range []struct{ set, want string }{
		{"workerImage.tag=latest", "mutable tag"},
		{"image.digest=sha256:nope", "/image/digest"},
		{"manager.pollInterval=soon", "pollInterval"},
		{"rbac.watchNamespaces={Not_A_Namespace}", "watchNamespaces"},
		{"unknownKey=1", "unknownKey"},
		{"prometheus.auth=azureWorkloadIdentity", "azureClientID"},
	} {
		out, err := helm(t, "template", "sb", chartDir, "--kube-version", kubeVersion(t), "--set", bad.set)
		if err == nil || !strings.Contains(out, bad.want) {
			t.Errorf("--set %s: err %v, want a refusal mentioning %q:\n%s", bad.set, err, bad.want, out)
		}
	}
}

// TestAKSGuide runs docs/aks.md's `helm install` block as written — its values
// file and flags, reading step 2's images.env as hack/image writes it — with `helm
// template` for `helm install` (same flags), checks that it renders for AKS's managed Prometheus with
// every image by digest, and applies it with server-side dry-run: the guide cannot
// drift from the chart.
func TestAKSGuide(t *testing.T) {
	raw, err := os.ReadFile("../docs/aks.md")
	if err != nil {
		t.Fatal(err)
	}
	var command string
	for _, block := range strings.Split(string(raw), "```sh\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		// From reading step 2's images.env through the install: the lines before it
		// (az commands) run against Azure.
		if _, cmd, ok := strings.Cut(block, "\nsource .state/images/images.env"); ok && strings.Contains(cmd, "\nhelm install serdebench ") {
			command = "source .state/images/images.env" + cmd
		}
	}
	if command == "" {
		t.Fatal("docs/aks.md has no block that sources .state/images/images.env and runs `helm install serdebench`")
	}
	namespaceNamed(t, "serdebench")
	namespaceNamed(t, "kafka")
	digest := func(b string) string { return "sha256:" + strings.Repeat(b, 32) }
	// Where the guide runs: a checkout's chart, and step 2's images.env as
	// hack/image/build.sh writes it (a registry with a port, which a careless
	// parse of the references would cut at the wrong colon).
	dir := t.TempDir()
	chart, err := filepath.Abs("../charts")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(chart, filepath.Join(dir, "charts")); err != nil {
		t.Fatal(err)
	}
	env := "MANAGER_IMAGE=sbacr.azurecr.io:443/serdebench/manager:v0.1.0-dev.0123456789ab@" + digest("a1") + "\n" +
		"WORKER_IMAGE=sbacr.azurecr.io:443/serdebench/worker:v0.1.0-dev.0123456789ab@" + digest("b2") + "\n" +
		"JVM_WORKER_IMAGE=sbacr.azurecr.io:443/serdebench/worker-jvm:v0.1.0-dev.0123456789ab@" + digest("c3") + "\n"
	if err := os.MkdirAll(filepath.Join(dir, ".state/images"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".state/images/images.env"), []byte(env), 0o644); err != nil {
		t.Fatal(err)
	}
	// helm is a function here: the guide's install, rendered.
	script := `helm() { [ "$1" = install ] || { echo "not helm install: $*" >&2; return 2; }; shift; "$SERDEBENCH_HELM" template --kube-version ` + kubeVersion(t) + ` "$@"; }
set -euo pipefail
` + command
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"QUERY=https://sb-amw-abcd.westeurope.prometheus.monitor.azure.com",
		"CLIENT_ID=6f0e7b8a-1c2d-4e5f-8a9b-0c1d2e3f4a5b")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the guide's helm command:\n%s\n%v\n%s", command, err, stderr.String())
	}
	rendered := string(out)
	got := kinds(t, rendered)
	for k, n := range map[string]int{"PodMonitor/serdebench": 1, "ServiceMonitor/serdebench": 1, "Role/kafka": 1, "PrometheusRule": 0, "Deployment/serdebench": 1} {
		if got[k] != n {
			t.Errorf("%s: rendered %d, want %d (all: %v)", k, got[k], n, got)
		}
	}
	for _, want := range []string{
		// The chart's tag (v<appVersion>) rides along; the digest is what is pulled.
		`image: "sbacr.azurecr.io:443/serdebench/manager:v`, "@" + digest("a1") + `"`,
		"--worker-image=sbacr.azurecr.io:443/serdebench/worker:v", "@" + digest("b2") + "\n",
		"--jvm-worker-image=sbacr.azurecr.io:443/serdebench/worker-jvm:v", "@" + digest("c3") + "\n",
		// The federated credential's subject (step 4) names this service account.
		"kind: ServiceAccount\nmetadata:\n  name: serdebench-serdebench-operator\n",
		"--prometheus-url=https://sb-amw-abcd.westeurope.prometheus.monitor.azure.com",
		"--prometheus-auth=azure-workload-identity",
		"azure.workload.identity/client-id: 6f0e7b8a-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
		"apiVersion: azmonitoring.coreos.com/v1",
	} {
		if !strings.Contains(rendered, want) {
			t.Errorf("the guide's rendering lacks %q", want)
		}
	}
	res := dryRun(t, rendered)
	t.Logf("%d objects accepted", strings.Count(res, "(server dry run)"))
}

// TestKustomize builds config/default (CRDs, RBAC, manager, PodMonitor) and the
// samples with kubectl's kustomize and applies them with server-side dry-run.
func TestKustomize(t *testing.T) {
	namespaceNamed(t, "serdebench-system")
	for _, dir := range []string{"../config/default", "../config/samples"} {
		out, err := exec.Command(kubectlPath(t), "kustomize", dir).CombinedOutput()
		if err != nil {
			t.Fatalf("kustomize %s: %v\n%s", dir, err, out)
		}
		res := dryRun(t, string(out), "-n", "serdebench-system")
		if n := strings.Count(res, "(server dry run)"); n < 3 {
			t.Fatalf("%s: %d objects applied:\n%s", dir, n, res)
		}
		t.Logf("%s accepted:\n%s", dir, res)
	}
	samplesByWhereTheyRun(t)
	out, _ := exec.Command(kubectlPath(t), "kustomize", "../config/default").CombinedOutput()
	for _, want := range []string{"kind: PodMonitor", "kind: ClusterRole\n", "kind: CustomResourceDefinition", "ghcr.io/serdebench/manager:v"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("config/default lacks %q", want)
		}
	}
	if strings.Contains(string(out), ":latest") || strings.Contains(string(out), ":dev") {
		t.Error("config/default refers to a mutable image tag")
	}
}

func kubectlPath(t *testing.T) string {
	t.Helper()
	k := fmt.Sprintf("%s/kubectl", testEnv.BinaryAssetsDirectory)
	if _, err := os.Stat(k); err != nil {
		t.Fatalf("kubectl (built by hack/k8s/build.sh): %v", err)
	}
	return k
}

// samplesByWhereTheyRun: the cluster samples (config/samples' kustomization) name
// no loopback broker, which in a pod would be the pod itself, and every sample file
// beside the kustomization is in it; config/samples/local's each run against this
// machine's broker (a loopback bootstrap address).
func samplesByWhereTheyRun(t *testing.T) {
	t.Helper()
	loopback := func(s string) bool {
		return strings.Contains(s, "127.0.0.1") || strings.Contains(s, "localhost") || strings.Contains(s, "[::1]")
	}
	out, err := exec.Command(kubectlPath(t), "kustomize", "../config/samples").CombinedOutput()
	if err != nil {
		t.Fatalf("kustomize: %v\n%s", err, out)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(string(out)), 4096)
	experiments := 0
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode config/samples' kustomization: %v", err)
		}
		for _, path := range [][]string{{"spec", "kafka", "bootstrapServers"}, {"spec", "template", "spec", "kafka", "bootstrapServers"}} {
			if b, _, _ := unstructured.NestedString(u.Object, path...); loopback(b) {
				t.Errorf("cluster sample %s %s names a loopback broker (%s): it belongs in config/samples/local", u.GetKind(), u.GetName(), b)
			}
		}
		if strings.HasPrefix(u.GetKind(), "Serialization") {
			experiments++
		}
	}
	raw, err := os.ReadFile("../config/samples/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tops, _ := filepath.Glob("../config/samples/*.yaml")
	for _, f := range tops {
		if name := filepath.Base(f); name != "kustomization.yaml" && !strings.Contains(string(raw), "  - "+name+"\n") {
			t.Errorf("config/samples/%s is in neither the cluster set (kustomization.yaml) nor config/samples/local", name)
		}
	}
	locals, _ := filepath.Glob("../config/samples/local/*.yaml")
	for _, f := range locals {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Spec struct {
				Kafka struct {
					BootstrapServers string `json:"bootstrapServers"`
				} `json:"kafka"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(b, &doc); err != nil || !loopback(doc.Spec.Kafka.BootstrapServers) {
			t.Errorf("%s: a local sample's broker is this machine's (a loopback bootstrap address), not %q (%v)", f, doc.Spec.Kafka.BootstrapServers, err)
		}
	}
	if experiments < 10 || len(locals) < 5 {
		t.Errorf("found %d cluster experiments and schedules and %d local samples", experiments, len(locals))
	}
}

// TestPrometheusRules renders the chart's PrometheusRule and runs promtool (Prometheus'
// own rule checker and unit-test runner) on its rules: SerdebenchRegression fires for a
// regressed schedule, names its regressed trials, and resolves when a run recovers.
func TestPrometheusRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool not found: run through `make test`, which installs Debian's prometheus package")
	}
	out, err := helm(t, "template", "sb", chartDir, "-n", "sb-chart", "--kube-version", kubeVersion(t),
		"--set", "prometheusRule.enabled=true", "--set", "prometheusRule.labels.release=kube-prometheus-stack", "-s", "templates/prometheusrule.yaml")
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, out)
	}
	var rule unstructured.Unstructured
	if err := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(out), 4096).Decode(&rule.Object); err != nil {
		t.Fatal(err)
	}
	spec, _, _ := unstructured.NestedMap(rule.Object, "spec")
	rules, err := yaml.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), rules, 0o644); err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile("testdata/rules-test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules-test.yaml"), tests, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", "rules", "rules.yaml"}, {"test", "rules", "rules-test.yaml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("promtool %s: %v\n%s\nrules:\n%s", strings.Join(args, " "), err, b, rules)
		}
	}
}
