package build

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/names"
	"github.com/serdebench/serdebench/workers/protocol"
)

// RoleCheck is the source check Job's role; SourceCheckTrial stands in for a trial
// name in its labels (it belongs to the experiment, not to a trial).
const (
	RoleCheck        = "check"
	SourceCheckTrial = "source-check"
	// AnnotationSourceSHA256 on a source check Job is the hash of the content it
	// checks.
	AnnotationSourceSHA256 = "serdebench.io/source-sha256"
)

// SourceCheckDeadlineSeconds bounds a source check Job: checking samples takes
// seconds; an image that cannot be pulled must not hold the experiment longer.
const SourceCheckDeadlineSeconds = 300

// SourceCheckJob is the Job that checks the experiment's payload source, whose
// ConfigMap content hashes to hash, in the worker image: every sample through
// every codec of the spec, before a trial uses them (the operator links no codec).
func SourceCheckJob(cfg Config, x *serdebenchv1.SerializationExperiment, hash string) *batchv1.Job {
	src := x.Spec.Payload.Source
	t := WithSourceFiles(x, trial.Trial{Source: &trial.Source{Format: src.Format, Message: src.Message}})
	check := protocol.SourceCheck{Source: *t.Source, Codecs: x.Spec.Codecs, TerminationLog: corev1.TerminationMessagePathDefault}
	c := restricted(cfg, x, "check", check.Args())
	labels := TrialLabels(x, trial.Trial{Name: SourceCheckTrial})
	labels[LabelRole] = RoleCheck
	pod := podSpec(x, []corev1.Container{c})
	pod.Volumes = nil // the source's only: no Kafka CA
	if v := SourceVolume(x); v != nil {
		pod.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: v.Name, MountPath: SourceMountPath, ReadOnly: true}}
		pod.Volumes = []corev1.Volume{*v}
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: names.SourceCheckJob(x.Name, string(x.UID), hash), Namespace: x.Namespace,
			Labels: labels, Annotations: map[string]string{AnnotationSourceSHA256: hash}},
		Spec: batchv1.JobSpec{
			Completions: ptr.To(int32(1)),
			// A verdict (exit 4) is final; a pod the cluster disrupted (eviction,
			// preemption, node loss) is replaced without counting against the limit:
			// the check has no state to lose.
			BackoffLimit: ptr.To(int32(0)),
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action:          batchv1.PodFailurePolicyActionIgnore,
				OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}},
			}}},
			ActiveDeadlineSeconds: ptr.To(int64(SourceCheckDeadlineSeconds)),
			Template:              corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod},
		},
	}
}
