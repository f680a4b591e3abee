package controllers_test

import (
	"context"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
)

var (
	testEnv *envtest.Environment
	cfg     *rest.Config
	k8s     client.Client
	scheme  = runtime.NewScheme()
)

// TestMain starts a real kube-apiserver and etcd (built from source by
// hack/k8s/build.sh) with serdebench's CRDs and the Strimzi, prometheus-operator and
// Chaos Mesh CRDs generated from their published artifacts (hack/crds/fetch.sh).
// Anything missing fails the suite: nothing is skipped.
func TestMain(m *testing.M) {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(serdebenchv1.AddToScheme(scheme))
	logf.SetLogger(zap.New(zap.WriteTo(os.Stderr)))

	start := time.Now()
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		assets = script("../hack/k8s/build.sh")
	}
	external := script("../hack/crds/fetch.sh")
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "config", "crd", "bases"), external},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}
	var err error
	if cfg, err = testEnv.Start(); err != nil {
		log.Fatalf("start envtest (kube-apiserver and etcd from %s): %v", assets, err)
	}
	log.Printf("envtest ready in %s (assets %s)", time.Since(start).Round(time.Millisecond), assets)
	if k8s, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		log.Fatal(err)
	}
	code := m.Run()
	if err := testEnv.Stop(); err != nil {
		log.Printf("stop envtest: %v", err)
	}
	os.Exit(code)
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
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: pointerTo(true)}})
	if err != nil {
		t.Fatal(err)
	}
	r := &controllers.ExperimentReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: scheme, Recorder: mgr.GetEventRecorderFor("serdebench"),
		WorkerImage: "serdebench/worker:test", ImagePullPolicy: corev1.PullNever, Poll: 200 * time.Millisecond, OperatorVersion: "test",
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
// apiserver, for binaries (kubectl, the manager) that the tests run.
func adminKubeconfig(t *testing.T, name string) string {
	t.Helper()
	user, err := testEnv.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kc, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return kc
}

// newNamespace creates a namespace that enforces the restricted Pod Security
// Standard, so every worker pod the tests create is checked against it.
func newNamespace(t *testing.T) string {
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
