package controllers_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
	"github.com/serdebench/serdebench/internal/topics"
)

var (
	testEnv *envtest.Environment
	// cfg is cluster admin: the tests themselves (and the stand-in kubelet) use it.
	cfg *rest.Config
	// managerCfg impersonates the operator's ServiceAccount, bound to the RBAC the
	// project ships (config/rbac): a verb missing there fails a test here.
	managerCfg *rest.Config
	k8s        client.Client
	scheme     = runtime.NewScheme()
	// externalCRDs holds the third-party CRDs (hack/crds/fetch.sh); Strimzi's two
	// generations are in strimzi-<version>/ below it.
	externalCRDs string
)

// Strimzi generations the tests install: the current one by default.
const (
	strimziCurrent  = "strimzi-1.2.0"
	strimziPrevious = "strimzi-0.45.0"
)

// The operator's ServiceAccount, as config/rbac binds it.
const (
	managerNamespace      = "serdebench-system"
	managerServiceAccount = "serdebench-manager"
)

// TestMain starts a real kube-apiserver and etcd (built from source by
// hack/k8s/build.sh) with serdebench's CRDs and the Strimzi, prometheus-operator and
// Chaos Mesh CRDs generated from their published artifacts (hack/crds/fetch.sh).
// Anything missing fails the suite: nothing is skipped.
func TestMain(m *testing.M) {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(serdebenchv1.AddToScheme(scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
	logf.SetLogger(zap.New(zap.WriteTo(os.Stderr)))

	start := time.Now()
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		assets = script("../hack/k8s/build.sh")
	}
	externalCRDs = script("../hack/crds/fetch.sh")
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "config", "crd", "bases"), externalCRDs, filepath.Join(externalCRDs, strimziCurrent)},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}
	var err error
	if cfg, err = testEnv.Start(); err != nil {
		log.Fatalf("start envtest (kube-apiserver and etcd from %s): %v", assets, err)
	}
	log.Printf("envtest ready in %s (assets %s)", time.Since(start).Round(time.Millisecond), assets)
	checkServerVersion(cfg)
	if k8s, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		log.Fatal(err)
	}
	if managerCfg, err = installRBAC(); err != nil {
		log.Fatalf("install the shipped RBAC: %v", err)
	}
	code := m.Run()
	if err := testEnv.Stop(); err != nil {
		log.Printf("stop envtest: %v", err)
	}
	os.Exit(code)
}

// apiserverVersion is envtest's apiserver's Kubernetes version ("v1.37.2"), read once
// by TestMain; the chart is rendered for it (kubeVersion).
var apiserverVersion string

// checkServerVersion reads the apiserver's version and fails the suite when it is
// not the one the Makefile asked for (SERDEBENCH_K8S_VERSION: the current line, or
// the oldest AKS minor): a suite meant for one version must not pass on another.
func checkServerVersion(c *rest.Config) {
	dc, err := discovery.NewDiscoveryClientForConfig(c)
	if err != nil {
		log.Fatal(err)
	}
	v, err := dc.ServerVersion()
	if err != nil {
		log.Fatalf("the apiserver's version: %v", err)
	}
	apiserverVersion = v.GitVersion
	if want := os.Getenv("SERDEBENCH_K8S_VERSION"); want != "" && v.GitVersion != want {
		log.Fatalf("envtest's apiserver is Kubernetes %s, want %s (SERDEBENCH_K8S_VERSION)", v.GitVersion, want)
	}
}

// installRBAC applies config/rbac (the ClusterRole generated from the reconciler's
// markers and its binding to the manager's ServiceAccount) and returns a config
// that acts as that ServiceAccount.
func installRBAC() (*rest.Config, error) {
	ctx := context.Background()
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: managerNamespace}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: managerNamespace, Name: managerServiceAccount}},
	}
	for _, f := range []string{"role.yaml", "role_binding.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "config", "rbac", f))
		if err != nil {
			return nil, err
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			if strings.TrimSpace(strings.Trim(doc, "-")) == "" {
				continue
			}
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			objs = append(objs, u)
		}
	}
	for _, o := range objs {
		if err := k8s.Create(ctx, o); err != nil {
			return nil, fmt.Errorf("create %s: %w", o.GetName(), err)
		}
	}
	c := rest.CopyConfig(cfg)
	c.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + managerNamespace + ":" + managerServiceAccount,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + managerNamespace},
	}
	return c, nil
}

// script runs a hack/ script that prints a directory, failing the suite if it fails.
func script(path string) string {
	cmd := exec.Command("bash", path)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// startManager runs the reconciler in a manager until the returned stop is called
// (or the test ends). Pod logs come from the test's kubelet, if it has one.
func startManager(t *testing.T, configure func(r *controllers.ExperimentReconciler), kubelets ...*kubelet) (stop func()) {
	t.Helper()
	// Tests run managers one after another in one process: skip the check that
	// controller names are unique per process.
	mgr, err := ctrl.NewManager(managerCfg, ctrl.Options{Scheme: scheme, Cache: controllers.CacheOptions(), Metrics: metricsserver.Options{BindAddress: "0"},
		// A panic in a reconcile (the crash-injection test's) is recovered as an
		// error, as in production.
		Controller: config.Controller{SkipNameValidation: pointerTo(true), RecoverPanic: pointerTo(true)}})
	if err != nil {
		t.Fatal(err)
	}
	r := &controllers.ExperimentReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: scheme, Recorder: mgr.GetEventRecorderFor("serdebench"), //nolint:staticcheck // the manager's recorder (cmd/manager)
		WorkerImage: "serdebench/worker:test", JVMWorkerImage: jvmWorkerImage, ImagePullPolicy: corev1.PullNever, Poll: 200 * time.Millisecond, OperatorVersion: "test",
		// Short: tests without a Prometheus need no final scrape.
		WorkerMetricsGrace: time.Millisecond, MaxConcurrentReconciles: 4}
	for _, k := range kubelets {
		r.PodLogs = k.podLogs
	}
	if configure != nil {
		configure(r)
	}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	return runManager(t, mgr)
}

// runManager starts mgr until the test ends; stop ends it sooner (it is idempotent).
func runManager(t *testing.T, mgr ctrl.Manager) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	var once bool
	stop = func() {
		if once {
			return
		}
		once = true
		cancel()
		<-done
	}
	t.Cleanup(stop)
	return stop
}

// adminKubeconfig writes a kubeconfig for a cluster-admin user of the test
// apiserver, for binaries (kubectl) that the tests run.
func adminKubeconfig(t *testing.T, name string) string {
	t.Helper()
	return kubeconfig(t, name, false)
}

// managerKubeconfig writes a kubeconfig that acts as the operator's ServiceAccount
// (the shipped RBAC), for the manager binary.
func managerKubeconfig(t *testing.T, name string) string {
	t.Helper()
	return kubeconfig(t, name, true)
}

func kubeconfig(t testing.TB, name string, asManager bool) string {
	t.Helper()
	user, err := testEnv.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	if asManager {
		kc, err := clientcmd.Load(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, ai := range kc.AuthInfos {
			ai.Impersonate = managerCfg.Impersonate.UserName
			ai.ImpersonateGroups = managerCfg.Impersonate.Groups
		}
		if raw, err = clientcmd.Write(*kc); err != nil {
			t.Fatal(err)
		}
	}
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kc, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return kc
}

// newNamespace creates a namespace that enforces the restricted Pod Security
// Standard, so every worker pod the tests create is checked against it.
func newNamespace(t testing.TB) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "sx-test-", Labels: map[string]string{
		"pod-security.kubernetes.io/enforce":         "restricted",
		"pod-security.kubernetes.io/enforce-version": "latest",
	}}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// useStrimzi replaces the installed Strimzi CRDs with another generation's for the
// rest of the test, and puts the current ones back after it.
func useStrimzi(t *testing.T, generation string) {
	t.Helper()
	useStrimziCRDs(t, filepath.Join(externalCRDs, generation))
}

// useStrimziCRDs is useStrimzi with the CRDs of the directory dir.
func useStrimziCRDs(t *testing.T, dir string) {
	t.Helper()
	swap := func(from, to string) {
		// KafkaTopics that earlier tests' stand-in Topic Operators left with their
		// finalizer (it stops with its test) would hold the CRD's deletion forever.
		releaseKafkaTopics(t)
		old := envtest.CRDInstallOptions{Paths: []string{from}}
		if err := envtest.ReadCRDFiles(&old); err != nil || len(old.CRDs) == 0 {
			t.Fatalf("read %s CRDs: %v (%d)", from, err, len(old.CRDs))
		}
		if err := envtest.UninstallCRDs(cfg, old); err != nil {
			t.Fatalf("uninstall %s CRDs: %v", from, err)
		}
		for _, crd := range old.CRDs {
			waitFor(t, 30*time.Second, "CRD "+crd.Name+" deleted", func() (bool, error) {
				err := k8s.Get(context.Background(), client.ObjectKey{Name: crd.Name}, crd.DeepCopy())
				return apierrors.IsNotFound(err), err
			})
		}
		if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: []string{to}}); err != nil {
			t.Fatalf("install %s CRDs: %v", to, err)
		}
	}
	current := filepath.Join(externalCRDs, strimziCurrent)
	swap(current, dir)
	t.Cleanup(func() { swap(dir, current) })
}

// releaseKafkaTopics removes the Topic Operator's finalizer from every KafkaTopic
// left in the test apiserver.
func releaseKafkaTopics(t *testing.T) {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(strimziGVK(t, topics.KindKafkaTopic).GroupVersion().WithKind("KafkaTopicList"))
	if err := k8s.List(context.Background(), list); err != nil {
		t.Fatalf("list KafkaTopics: %v", err)
	}
	for i := range list.Items {
		kt := &list.Items[i]
		if controllerutil.RemoveFinalizer(kt, topics.Finalizer) {
			if err := k8s.Update(context.Background(), kt); err != nil && !apierrors.IsNotFound(err) {
				t.Fatalf("release KafkaTopic %s/%s: %v", kt.GetNamespace(), kt.GetName(), err)
			}
		}
	}
}

// strimziGVK is the kind at the Strimzi version the test apiserver serves now
// (asked fresh: tests swap Strimzi generations).
func strimziGVK(t testing.TB, kind string) schema.GroupVersionKind {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range topics.StrimziVersions {
		gv := topics.StrimziGroup + "/" + v
		if res, err := dc.ServerResourcesForGroupVersion(gv); err == nil {
			for _, r := range res.APIResources {
				if r.Kind == kind {
					return schema.GroupVersionKind{Group: topics.StrimziGroup, Version: v, Kind: kind}
				}
			}
		}
	}
	t.Fatalf("no Strimzi %s served", kind)
	return schema.GroupVersionKind{}
}
