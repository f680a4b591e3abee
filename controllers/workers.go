package controllers

import (
	"encoding/json"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/plan"
)

// Roles of worker Jobs.
const (
	roleConsumer = "consumers"
	roleProducer = "producers"
	// roleWorkers is the single Job of a colocated trial.
	roleWorkers = "workers"
)

const (
	metricsPort = 9090
	caMountPath = "/etc/serdebench/tls"
	// terminationMessageLimit is the kubelet's limit per pod; colocated containers
	// share it.
	terminationMessageLimit = 12288
)

// trialJobs returns the Jobs that run a trial: consumers and producers, or one
// colocated Job.
func (r *ExperimentReconciler) trialJobs(x *serdebenchv1.SerializationExperiment, t plan.Trial, topic, bootstrap string) ([]*batchv1.Job, error) {
	trialJSON, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode trial: %w", err)
	}
	group := topic + ".consumers"
	base := []string{
		"--trial=" + string(trialJSON),
		"--topic=" + topic,
		"--bootstrap=" + bootstrap,
		"--experiment=" + x.Name,
		"--group=" + group,
		fmt.Sprintf("--metrics-addr=:%d", metricsPort),
		"--metrics-grace=20s",
		"--termination-log=/dev/termination-log",
		fmt.Sprintf("--timeout=%ds", x.Spec.TimeoutSeconds),
	}
	base = append(base, securityArgs(x)...)
	consumerArgs := func(name string) []string {
		return append(append([]string{}, base...), "--role=consumer", "--name="+name)
	}
	producerArgs := func(id string) []string {
		return append(append([]string{}, base...), "--role=producer", "--id="+id, "--wait-group="+group)
	}
	if x.Spec.Workers.Colocate {
		n := int(t.Consumers + t.Producers)
		limit := fmt.Sprintf("--termination-max-bytes=%d", terminationMessageLimit/n)
		var containers []corev1.Container
		for i := range int(t.Consumers) {
			containers = append(containers, r.container(x, fmt.Sprintf("consumer-%d", i), append(consumerArgs(fmt.Sprintf("c%d", i)), limit), i == 0))
		}
		for i := range int(t.Producers) {
			containers = append(containers, r.container(x, fmt.Sprintf("producer-%d", i), append(producerArgs(fmt.Sprint(i)), limit), false))
		}
		return []*batchv1.Job{r.job(x, t, roleWorkers, 1, containers)}, nil
	}
	consumers := r.job(x, t, roleConsumer, t.Consumers,
		[]corev1.Container{r.container(x, "consumer", consumerArgs("c$(JOB_COMPLETION_INDEX)"), true)})
	producers := r.job(x, t, roleProducer, t.Producers,
		[]corev1.Container{r.container(x, "producer", producerArgs("$(JOB_COMPLETION_INDEX)"), true)})
	return []*batchv1.Job{consumers, producers}, nil
}

// securityArgs passes TLS and SASL settings; credentials come from the Secret as
// environment variables, the CA as a mounted file.
func securityArgs(x *serdebenchv1.SerializationExperiment) []string {
	var args []string
	k := x.Spec.Kafka
	if k.TLS != nil {
		args = append(args, "--tls")
		if k.TLS.CASecretRef != nil {
			args = append(args, "--tls-ca-file="+caMountPath+"/"+k.TLS.CASecretRef.Key)
		}
		if k.TLS.InsecureSkipVerify {
			args = append(args, "--tls-insecure")
		}
	}
	if k.SASL != nil {
		args = append(args, "--sasl-mechanism="+string(k.SASL.Mechanism))
	}
	return args
}

// container is one worker container meeting the restricted Pod Security Standard.
func (r *ExperimentReconciler) container(x *serdebenchv1.SerializationExperiment, name string, args []string, metricsPortName bool) corev1.Container {
	c := corev1.Container{
		Name:                     name,
		Image:                    r.workerImage(x),
		ImagePullPolicy:          r.ImagePullPolicy,
		Args:                     args,
		Resources:                x.Spec.Workers.Resources,
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
	if metricsPortName {
		// Only one container per pod may name the port the PodMonitor scrapes.
		c.Ports = []corev1.ContainerPort{{Name: "metrics", ContainerPort: metricsPort, Protocol: corev1.ProtocolTCP}}
	}
	if s := x.Spec.Kafka.SASL; s != nil {
		c.Env = []corev1.EnvVar{
			{Name: "SERDEBENCH_SASL_USERNAME", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: s.SecretRef, Key: "username"}}},
			{Name: "SERDEBENCH_SASL_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: s.SecretRef, Key: "password"}}},
		}
	}
	if t := x.Spec.Kafka.TLS; t != nil && t.CASecretRef != nil {
		c.VolumeMounts = []corev1.VolumeMount{{Name: "kafka-ca", MountPath: caMountPath, ReadOnly: true}}
	}
	return c
}

func (r *ExperimentReconciler) workerImage(x *serdebenchv1.SerializationExperiment) string {
	if x.Spec.Workers.Image != "" {
		return x.Spec.Workers.Image
	}
	return r.WorkerImage
}

// job wraps containers in an Indexed Job of n pods that never retries: a retried
// worker would send or count records twice.
func (r *ExperimentReconciler) job(x *serdebenchv1.SerializationExperiment, t plan.Trial, role string, n int32, containers []corev1.Container) *batchv1.Job {
	labels := trialLabels(x, t)
	labels[LabelRole] = role
	w := x.Spec.Workers
	pod := corev1.PodSpec{
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
	if tls := x.Spec.Kafka.TLS; tls != nil && tls.CASecretRef != nil {
		pod.Volumes = []corev1.Volume{{Name: "kafka-ca", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: tls.CASecretRef.Name}}}}
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: jobName(x, t, role), Namespace: x.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			Parallelism:           ptr.To(n),
			Completions:           ptr.To(n),
			CompletionMode:        ptr.To(batchv1.IndexedCompletion),
			BackoffLimit:          ptr.To(int32(0)),
			ActiveDeadlineSeconds: ptr.To(int64(x.Spec.TimeoutSeconds)),
			Template:              corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod},
		},
	}
}

// bootstrapFor is the workers' bootstrap address.
func bootstrapFor(x *serdebenchv1.SerializationExperiment) string {
	k := x.Spec.Kafka
	if k.Strimzi == nil {
		return k.BootstrapServers
	}
	if k.Strimzi.BootstrapServers != "" {
		return k.Strimzi.BootstrapServers
	}
	return fmt.Sprintf("%s-kafka-bootstrap.%s.svc:9092", k.Strimzi.ClusterName, strimziNamespace(x))
}

func strimziNamespace(x *serdebenchv1.SerializationExperiment) string {
	if ns := x.Spec.Kafka.Strimzi.Namespace; ns != "" {
		return ns
	}
	return x.Namespace
}

func brokersOf(bootstrap string) []string { return strings.Split(bootstrap, ",") }
