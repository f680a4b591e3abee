// Command manager runs the serdebench operator: it reconciles SerializationExperiments
// into trials of worker Jobs and writes SerializationResults.
package main

import (
	"flag"
	"net/http"
	"os"
	"strings"
	"time"

	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/serdebench/serdebench/controllers/build"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
	"github.com/serdebench/serdebench/controllers/promquery"
	"github.com/serdebench/serdebench/internal/version"
)

// --prometheus-auth values.
const (
	authNone                  = "none"
	authAzureWorkloadIdentity = "azure-workload-identity"
)

// options are the manager's flags.
type options struct {
	metricsAddr, probeAddr, pprofAddr, prometheusURL, prometheusAuth, workerImage, jvmWorkerImage, pullPolicy, watchNamespaces string
	leaderElect                                                                                                                bool
	poll, metricsGrace                                                                                                         time.Duration
	concurrency                                                                                                                int
	zap                                                                                                                        zap.Options
}

// bindFlags defines the manager's flags on fs: the one list docs/api.md's flag
// table is generated from (TestFlagsDoc).
func bindFlags(fs *flag.FlagSet) *options {
	o := &options{}
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", "address of the operator's own /metrics; 0 disables")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "address of /healthz and /readyz")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "use leader election (for more than one replica)")
	fs.StringVar(&o.prometheusURL, "prometheus-url", "", "Prometheus to cross-check trials against (e.g. http://prometheus-operated.monitoring:9090); empty skips the cross-check")
	fs.StringVar(&o.prometheusAuth, "prometheus-auth", authNone, "how to authenticate to --prometheus-url: "+authNone+", or "+authAzureWorkloadIdentity+" (an Azure Monitor workspace's query endpoint, as the pod's workload identity)")
	fs.StringVar(&o.workerImage, "worker-image", "", "worker image for experiments that name none, by digest or an immutable tag (required: no mutable default)")
	fs.StringVar(&o.watchNamespaces, "watch-namespaces", "", "comma-separated namespaces to reconcile experiments in (the RBAC must grant them); empty: all")
	fs.StringVar(&o.jvmWorkerImage, "jvm-worker-image", "", "image of the JVM worker, which runs the Java client's trials (client: java); empty: those trials are refused")
	fs.StringVar(&o.pullPolicy, "worker-image-pull-policy", string(corev1.PullIfNotPresent), "worker image pull policy")
	fs.DurationVar(&o.poll, "poll-interval", 2*time.Second, "how often waiting phases re-check")
	fs.IntVar(&o.concurrency, "max-concurrent-reconciles", 4, "how many experiments advance at once, in each controller (acceptance, experiments)")
	fs.DurationVar(&o.metricsGrace, "worker-metrics-grace", build.DefaultWorkerMetricsGrace, "the longest workers keep serving /metrics after their trial: they stop once every scraper seen has scraped once more, and serve all of it only when none did (a Prometheus that has not discovered the pod yet)")
	fs.StringVar(&o.pprofAddr, "pprof-bind-address", "", "address of Go's /debug/pprof profiles (e.g. localhost:6060); empty disables")
	o.zap.BindFlags(fs)
	return o
}

func main() {
	o := bindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&o.zap)))
	log := ctrl.Log.WithName("setup")
	if o.workerImage == "" {
		// No default: a mutable default tag would run whatever it points to today.
		log.Error(nil, "--worker-image is required (e.g. ghcr.io/serdebench/worker:v0.1.0@sha256:...)")
		os.Exit(2)
	}
	var namespaces []string
	for _, ns := range strings.Split(o.watchNamespaces, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			namespaces = append(namespaces, ns)
		}
	}

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(serdebenchv1.AddToScheme(scheme))

	cfg := ctrl.GetConfigOrDie()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  controllers.CacheOptions(namespaces...),
		Metrics:                metricsserver.Options{BindAddress: o.metricsAddr},
		HealthProbeBindAddress: o.probeAddr,
		PprofBindAddress:       o.pprofAddr,
		LeaderElection:         o.leaderElect,
		LeaderElectionID:       "serdebench-operator.serdebench.io",
	})
	if err != nil {
		log.Error(err, "create manager")
		os.Exit(1)
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		log.Error(err, "create clientset")
		os.Exit(1)
	}
	// core/v1 Events, which kubectl describe, the docs' examples and the tests read;
	// controller-runtime 0.25 deprecates this recorder for the events.k8s.io one,
	// whose Eventf signature and RBAC differ: that move is its own change.
	recorder := mgr.GetEventRecorderFor("serdebench") //nolint:staticcheck // see above
	r := &controllers.ExperimentReconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: scheme, Clientset: clientset,
		Recorder:    recorder,
		WorkerImage: o.workerImage, JVMWorkerImage: o.jvmWorkerImage, ImagePullPolicy: corev1.PullPolicy(o.pullPolicy),
		OperatorVersion: version.String(), Poll: o.poll, MaxConcurrentReconciles: o.concurrency, WorkerMetricsGrace: o.metricsGrace,
	}
	if o.prometheusURL != "" {
		var rt http.RoundTripper
		switch o.prometheusAuth {
		case authNone:
		case authAzureWorkloadIdentity:
			if rt, err = promquery.AzureWorkloadIdentity(); err != nil {
				log.Error(err, "prometheus credentials")
				os.Exit(1)
			}
		default:
			log.Error(nil, "unknown --prometheus-auth", "value", o.prometheusAuth)
			os.Exit(2)
		}
		if r.Prometheus, err = promquery.New(o.prometheusURL, rt); err != nil {
			log.Error(err, "prometheus client")
			os.Exit(1)
		}
	}
	if err := r.SetupWithManager(mgr); err != nil {
		log.Error(err, "set up controller")
		os.Exit(1)
	}
	sr := &controllers.ScheduleReconciler{Client: mgr.GetClient(), Scheme: scheme, Recorder: recorder,
		Metrics: controllers.NewScheduleMetrics(ctrlmetrics.Registry), APIReader: mgr.GetAPIReader()}
	if err := sr.SetupWithManager(mgr); err != nil {
		log.Error(err, "set up schedule controller")
		os.Exit(1)
	}
	utilruntime.Must(mgr.AddHealthzCheck("healthz", healthz.Ping))
	utilruntime.Must(mgr.AddReadyzCheck("readyz", healthz.Ping))
	log.Info("starting", "version", version.String(), "workerImage", o.workerImage, "jvmWorkerImage", o.jvmWorkerImage, "prometheus", o.prometheusURL, "watchNamespaces", namespaces)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped")
		os.Exit(1)
	}
}
