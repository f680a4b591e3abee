package build

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/names"
	"github.com/serdebench/serdebench/workers/protocol"
)

// Config is what the operator's settings add to an experiment's Jobs.
type Config struct {
	// WorkerImage runs the Go clients' workers unless the experiment names one.
	WorkerImage string
	// JVMWorkerImage runs the Java client's workers (workers/jvm); empty: the
	// operator has none, and refuses those trials.
	JVMWorkerImage string
	// PullPolicy is the workers' image pull policy.
	PullPolicy corev1.PullPolicy
	// MetricsGrace is the longest workers serve /metrics after their trial (0:
	// DefaultWorkerMetricsGrace).
	MetricsGrace time.Duration
	// TerminationMax caps a worker's termination message (0: the protocol's
	// default).
	TerminationMax int
}

// Roles of worker Jobs.
const (
	RoleConsumer = "consumers"
	RoleProducer = "producers"
	// RoleWorkers is the single Job of a colocated trial.
	RoleWorkers = "workers"
)

// DefaultWorkerMetricsGrace is the longest workers keep serving /metrics after
// their trial, for a Prometheus that has not yet scraped them (it applies newly
// discovered targets every 5 s by default); once every scraper seen has scraped
// again they stop (workers/metrics.Worker.Serve).
const DefaultWorkerMetricsGrace = 20 * time.Second

const (
	metricsPort = 9090
	// metricsPortName is the worker's metrics port in a one-container pod;
	// colocated containers use metrics-<role><n>. The PodMonitor keeps both.
	metricsPortName = "metrics"
	caMountPath     = "/etc/serdebench/tls"
	// terminationMessageLimit is the kubelet's limit per pod; colocated containers
	// share it.
	terminationMessageLimit = 12288
)

// TrialJobs returns the Jobs that run a trial: consumers and producers, or one
// colocated Job.
func TrialJobs(cfg Config, x *serdebenchv1.SerializationExperiment, t trial.Trial, topic, bootstrap string, attempt int) ([]*batchv1.Job, error) {
	base := protocol.Worker{
		Trial:          WithSourceFiles(x, t),
		Bootstrap:      Brokers(bootstrap),
		Topic:          topic,
		Group:          names.Group(x.Name, UIDPrefix(x, 8), t, attempt),
		Experiment:     x.Name,
		ExperimentUID:  string(x.UID),
		MetricsAddr:    fmt.Sprintf(":%d", metricsPort),
		MetricsGrace:   cfg.MetricsGrace,
		TerminationLog: corev1.TerminationMessagePathDefault,
		TerminationMax: cfg.TerminationMax,
		Timeout:        time.Duration(x.Spec.TimeoutSeconds) * time.Second,
		DrainTimeout:   protocol.DefaultDrainTimeout,
		WaitTimeout:    protocol.DefaultWaitTimeout,
	}
	if base.TerminationMax <= 0 {
		base.TerminationMax = protocol.DefaultTerminationMax
	}
	if base.MetricsGrace <= 0 {
		base.MetricsGrace = DefaultWorkerMetricsGrace
	}
	applySecurity(x, &base)
	if r := x.Spec.Kafka.SchemaRegistry; r != nil {
		base.SchemaRegistry = r.URL
	}
	consumer := func(name string) protocol.Worker {
		w := base
		w.Role, w.ID = protocol.RoleConsumer, name
		if t.Joiners() > 0 {
			// The consumers past the trial's wait as standbys for the fault's join.
			w.StandbyIndex = int(t.Consumers)
		}
		return w
	}
	consumers := t.Consumers + t.Joiners()
	producer := func(id string) protocol.Worker {
		w := base
		// The operator starts a trial's producers together (controllers' start).
		w.Role, w.ID, w.WaitForGroup, w.StartGate = protocol.RoleProducer, id, true, true
		return w
	}
	if x.Spec.Workers.Colocate {
		// Containers of a pod share its network namespace: each gets its own metrics
		// port (and port name, which the PodMonitor matches by prefix), and the pod's
		// termination-message budget is split between them.
		n := int(consumers + t.Producers)
		var workers []protocol.Worker
		for i := range int(consumers) {
			workers = append(workers, consumer(protocol.ConsumerName(i)))
		}
		for i := range int(t.Producers) {
			workers = append(workers, producer(protocol.ProducerID(i)))
		}
		var containers []corev1.Container
		for i, w := range workers {
			port := metricsPort + i
			w.MetricsAddr = fmt.Sprintf(":%d", port)
			w.TerminationMax = min(base.TerminationMax, terminationMessageLimit/n)
			name := fmt.Sprintf("%s-%s", w.Role, w.ID)
			c, err := container(cfg, x, name, w, port, "metrics-"+shortRole(w.Role)+strings.TrimPrefix(w.ID, "c"))
			if err != nil {
				return nil, err
			}
			containers = append(containers, c)
		}
		return []*batchv1.Job{job(x, t, RoleWorkers, 1, attempt, containers)}, nil
	}
	cc, err := container(cfg, x, "consumer", consumer("c$(JOB_COMPLETION_INDEX)"), metricsPort, metricsPortName)
	if err != nil {
		return nil, err
	}
	pc, err := container(cfg, x, "producer", producer("$(JOB_COMPLETION_INDEX)"), metricsPort, metricsPortName)
	if err != nil {
		return nil, err
	}
	return []*batchv1.Job{job(x, t, RoleConsumer, consumers, attempt, []corev1.Container{cc}), job(x, t, RoleProducer, t.Producers, attempt, []corev1.Container{pc})}, nil
}

// shortRole abbreviates a role for port names (at most 15 characters).
func shortRole(role string) string {
	if role == protocol.RoleProducer {
		return "p"
	}
	return "c"
}

// applySecurity passes TLS and SASL settings; credentials come from the Secret as
// environment variables, the CA as a mounted file.
func applySecurity(x *serdebenchv1.SerializationExperiment, w *protocol.Worker) {
	k := x.Spec.Kafka
	if k.TLS != nil {
		w.TLS = true
		if k.TLS.CASecretRef != nil {
			w.TLSCAFile = caMountPath + "/" + k.TLS.CASecretRef.Key
		}
		w.TLSInsecure = k.TLS.InsecureSkipVerify
	}
	if k.SASL != nil {
		w.SASLMechanism = string(k.SASL.Mechanism)
	}
}

// container is worker w's container meeting the restricted Pod Security Standard,
// of the image of its client's runtime (consumer.client may set the consumers
// apart).
func container(cfg Config, x *serdebenchv1.SerializationExperiment, name string, w protocol.Worker, port int, portName string) (corev1.Container, error) {
	args, err := w.Args()
	if err != nil {
		return corev1.Container{}, err
	}
	client := w.Client()
	image, err := RuntimeImage(cfg, x, client)
	if err != nil {
		return corev1.Container{}, err
	}
	c := restricted(cfg, x, name, args)
	c.Image = image
	// A writable /tmp beside the read-only root: the JVM worker's native
	// compression libraries (snappy, zstd) unpack themselves into java.io.tmpdir,
	// and a Go producer's machine probe writes and fsyncs a block there (an
	// emptyDir: the node's disk).
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: tmpVolume, MountPath: "/tmp"})
	c.Ports = []corev1.ContainerPort{{Name: portName, ContainerPort: int32(port), Protocol: corev1.ProtocolTCP}}
	if s := x.Spec.Kafka.SASL; s != nil {
		c.Env = append(c.Env, []corev1.EnvVar{
			{Name: protocol.SASLUserEnv, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: s.SecretRef, Key: "username"}}},
			{Name: protocol.SASLPasswordEnv, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: s.SecretRef, Key: "password"}}},
		}...)
	}
	if t := x.Spec.Kafka.TLS; t != nil && t.CASecretRef != nil {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "kafka-ca", MountPath: caMountPath, ReadOnly: true})
	}
	if v := SourceVolume(x); v != nil {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: v.Name, MountPath: SourceMountPath, ReadOnly: true})
	}
	return c, nil
}

// restricted is a worker-image container meeting the restricted Pod Security
// Standard, with its termination message where the operator reads it.
func restricted(cfg Config, x *serdebenchv1.SerializationExperiment, name string, args []string) corev1.Container {
	return corev1.Container{
		Name:                     name,
		Image:                    WorkerImage(cfg, x),
		ImagePullPolicy:          cfg.PullPolicy,
		Args:                     args,
		Resources:                x.Spec.Workers.Resources,
		Env:                      memoryLimitEnv(x.Spec.Workers.Resources),
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			ReadOnlyRootFilesystem:   ptr.To(true),
			RunAsNonRoot:             ptr.To(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
	}
}

// memoryLimitEnv is GOMEMLIMIT for a worker container with a memory limit: three
// quarters of it, the rest left to what the Go collector does not manage
// (librdkafka's buffers, up to 32 MiB, and the binary). The worker raises GOGC
// (workers/run.GCPercent); near its limit the collector then runs more often
// instead of the container being killed. None without a limit.
func memoryLimitEnv(res corev1.ResourceRequirements) []corev1.EnvVar {
	limit, ok := res.Limits[corev1.ResourceMemory]
	if !ok || limit.Value() <= 0 {
		return nil
	}
	return []corev1.EnvVar{{Name: "GOMEMLIMIT", Value: strconv.FormatInt(limit.Value()/4*3, 10)}}
}

// WorkerImage is the image the workers run: the experiment's, else the operator's default.
func WorkerImage(cfg Config, x *serdebenchv1.SerializationExperiment) string {
	if x.Spec.Workers.Image != "" {
		return x.Spec.Workers.Image
	}
	return cfg.WorkerImage
}

// RuntimeImage is the image that runs client c's workers: the Go workers' image
// (WorkerImage), or the operator's image of c's runtime.
func RuntimeImage(cfg Config, x *serdebenchv1.SerializationExperiment, c trial.Client) (string, error) {
	switch rt := c.OrDefault().Runtime(); rt {
	case trial.RuntimeGo:
		return WorkerImage(cfg, x), nil
	case trial.RuntimeJVM:
		if cfg.JVMWorkerImage == "" {
			return "", fmt.Errorf("client %s runs in the JVM worker's image, which this operator was not given (the chart's workerImage.jvm, the manager's --jvm-worker-image)", c)
		}
		return cfg.JVMWorkerImage, nil
	default:
		return "", fmt.Errorf("client %s: no image for the %s runtime", c, rt)
	}
}

// tmpVolume is a worker container's /tmp (an emptyDir).
const tmpVolume = "tmp"

// job wraps containers in an Indexed Job of n pods that never retries a pod: a
// retried worker would send or count records twice. (A disrupted trial is re-run
// whole, on a new topic, by the reconciler.)
func job(x *serdebenchv1.SerializationExperiment, t trial.Trial, role string, n int32, attempt int, containers []corev1.Container) *batchv1.Job {
	labels := TrialLabels(x, t)
	labels[LabelRole] = role
	labels[LabelAttempt] = fmt.Sprint(attempt)
	pod := podSpec(x, containers)
	pod.TopologySpreadConstraints = spread(x, labels)
	if tls := x.Spec.Kafka.TLS; tls != nil && tls.CASecretRef != nil {
		pod.Volumes = append(pod.Volumes, corev1.Volume{Name: "kafka-ca", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: tls.CASecretRef.Name}}})
	}
	if v := SourceVolume(x); v != nil {
		pod.Volumes = append(pod.Volumes, *v)
	}
	if slices.ContainsFunc(containers, func(c corev1.Container) bool {
		return slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == tmpVolume })
	}) {
		pod.Volumes = append(pod.Volumes, corev1.Volume{Name: tmpVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("256Mi"))}}})
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: JobName(x, t, role, attempt), Namespace: x.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			Parallelism:    ptr.To(n),
			Completions:    ptr.To(n),
			CompletionMode: ptr.To(batchv1.IndexedCompletion),
			BackoffLimit:   ptr.To(int32(0)),
			// A pod disrupted by the cluster (eviction, preemption, node loss) fails
			// the Job with reason PodFailurePolicy, which the operator retries on a
			// fresh topic; any other failure is the worker's own and final.
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action:          batchv1.PodFailurePolicyActionFailJob,
				OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}},
			}}},
			ActiveDeadlineSeconds: ptr.To(int64(x.Spec.TimeoutSeconds)),
			Template:              corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod},
		},
	}
}

// Bootstrap is the workers' bootstrap address.
func Bootstrap(x *serdebenchv1.SerializationExperiment) string {
	k := x.Spec.Kafka
	if k.Strimzi == nil {
		return k.BootstrapServers
	}
	if k.Strimzi.BootstrapServers != "" {
		return k.Strimzi.BootstrapServers
	}
	return fmt.Sprintf("%s-kafka-bootstrap.%s.svc:9092", k.Strimzi.ClusterName, StrimziNamespace(x))
}

// StrimziNamespace is where the experiment's Strimzi Kafka (and its KafkaTopics) live.
func StrimziNamespace(x *serdebenchv1.SerializationExperiment) string {
	if ns := x.Spec.Kafka.Strimzi.Namespace; ns != "" {
		return ns
	}
	return x.Namespace
}

// Brokers splits a bootstrap address.
func Brokers(bootstrap string) []string { return strings.Split(bootstrap, ",") }

// SourceMountPath is where a payload source's ConfigMap is mounted in worker pods.
const SourceMountPath = "/etc/serdebench/source"

// WithSourceFiles points a trial's source at the files of the mounted ConfigMap.
func WithSourceFiles(x *serdebenchv1.SerializationExperiment, t trial.Trial) trial.Trial {
	if t.Source == nil || x.Spec.Payload.Source == nil || x.Spec.Payload.Source.ConfigMap == nil {
		return t
	}
	ref := x.Spec.Payload.Source.ConfigMap
	src := *t.Source
	src.SchemaFile, src.SamplesFile = path.Join(SourceMountPath, ref.SchemaKey), path.Join(SourceMountPath, ref.SamplesKey)
	t.Source = &src
	return t
}

// SourceVolume is the payload source's ConfigMap as a read-only volume (nil without
// one).
func SourceVolume(x *serdebenchv1.SerializationExperiment) *corev1.Volume {
	src := x.Spec.Payload.Source
	if src == nil || src.ConfigMap == nil {
		return nil
	}
	return &corev1.Volume{Name: "payload-source", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: src.ConfigMap.Name},
		Items: []corev1.KeyToPath{{Key: src.ConfigMap.SchemaKey, Path: src.ConfigMap.SchemaKey},
			{Key: src.ConfigMap.SamplesKey, Path: src.ConfigMap.SamplesKey}},
	}}}
}

// spread is where a Job's pods go: the user's topology spread constraints, or by
// default one that prefers spreading the Job's pods (one role of one attempt)
// over nodes, so a trial that outgrows one node's cores uses several. It is a
// preference (ScheduleAnyway): a one-node cluster still runs every pod.
func spread(x *serdebenchv1.SerializationExperiment, labels map[string]string) []corev1.TopologySpreadConstraint {
	if c := x.Spec.Workers.TopologySpreadConstraints; len(c) > 0 {
		return c
	}
	return []corev1.TopologySpreadConstraint{{
		MaxSkew:           1,
		TopologyKey:       corev1.LabelHostname,
		WhenUnsatisfiable: corev1.ScheduleAnyway,
		LabelSelector:     &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
	}}
}

// podSpec runs containers once, as user 65532 under the restricted Pod Security
// Standard, where the experiment places its workers.
func podSpec(x *serdebenchv1.SerializationExperiment, containers []corev1.Container) corev1.PodSpec {
	w := x.Spec.Workers
	return corev1.PodSpec{
		RestartPolicy:                 corev1.RestartPolicyNever,
		Containers:                    containers,
		NodeSelector:                  w.NodeSelector,
		Affinity:                      w.Affinity,
		Tolerations:                   w.Tolerations,
		AutomountServiceAccountToken:  ptr.To(false),
		EnableServiceLinks:            ptr.To(false),
		TerminationGracePeriodSeconds: ptr.To(int64(60)),
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:   ptr.To(true),
			RunAsUser:      ptr.To(int64(65532)),
			RunAsGroup:     ptr.To(int64(65532)),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
	}
}
