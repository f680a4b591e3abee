//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/v1alpha1"
)

// The slower machine is CFS's arithmetic, not a count of busy loops: pods share a
// contended core by their CPU requests (cgroup cpu shares), so a worker requesting
// workerCPU beside a stressor requesting stressCPU spread over the node's cores
// (e2e/stressor pins its threads to each) keeps about workerCPU / (workerCPU +
// stressCPU/cores) of its core: a sixth here (2 cores; the node's other pods and
// processes take their share too). Busy loops started on the host instead
// slowed it by amounts their weight against the pods, the host's own cgroups,
// decided. docs/schedules.md gives what each measured.
var (
	workerCPU = resource.MustParse("100m")
	stressCPU = resource.MustParse("1")
)

// stressedNode is the node the schedule's workers run on and the stress goes to,
// by its hostname label (what a node selector names): the first schedulable
// node that is Ready and not tainted against pods.
func stressedNode(t *testing.T) string {
	t.Helper()
	nodes := &corev1.NodeList{}
	if err := k8s.List(context.Background(), nodes); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		tainted := slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool {
			return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
		})
		if !n.Spec.Unschedulable && !tainted && slices.ContainsFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool {
			return c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
		}) {
			return n.Labels[corev1.LabelHostname]
		}
	}
	t.Fatalf("no Ready schedulable node among %d", len(nodes.Items))
	return ""
}

// slowerMachine stresses the CPU beside the workers until a run that started
// under the stress is judged, and checks that run EnvironmentShifted by the
// machine probe's CPU part, and SerdebenchEnvironmentShifted firing. Before the
// stress ends the schedule is suspended and every run started under the stress
// finished and judged: a later one, unstressed, would be Regressed again and
// clear the gauge before a scrape.
func slowerMachine(t *testing.T, s *v1alpha1.SerializationSchedule, node string) {
	ctx := context.Background()
	shiftedAlert := map[string]string{"alertname": "SerdebenchEnvironmentShifted", "namespace": namespace, "schedule": s.Name}
	runs := func() []v1alpha1.SerializationExperiment {
		list := &v1alpha1.SerializationExperimentList{}
		if err := k8s.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{"serdebench.io/schedule": s.Name}); err != nil {
			t.Fatal(err)
		}
		return list.Items
	}
	schedule := func() *v1alpha1.SerializationSchedule {
		got := &v1alpha1.SerializationSchedule{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(s), got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	stop := stressBeside(t, node)
	defer stop()
	// The runs before the stress ran: taken once it runs, since a run may start
	// while the stressor's image is built and loaded.
	before := map[string]bool{}
	for _, x := range runs() {
		before[x.Name] = true
	}
	var got *v1alpha1.SerializationSchedule
	waitFor(t, 5*time.Minute, "a run started under the stress, compared", func() bool {
		got = schedule()
		return got.Status.LastComparedRun != "" && !before[got.Status.LastComparedRun]
	})
	under := got.Status.LastComparedRun
	x := &v1alpha1.SerializationExperiment{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: under}, x); err != nil || x.Status.ResultRef == nil {
		t.Fatalf("run %s: %v, result %v", under, err, x.Status.ResultRef)
	}
	res := &v1alpha1.SerializationResult{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: x.Status.ResultRef.Name}, res); err != nil {
		t.Fatal(err)
	}
	for _, tr := range res.Trials {
		if tr.Probe != nil {
			t.Logf("under stress, run %s, trial %s: probe cpu %d ns/op, fsync %d µs, connect %d µs", under, tr.Name,
				tr.Probe.CPUNanosPerOp, tr.Probe.FsyncMicros, tr.Probe.ConnectMicros)
		}
	}
	shifted := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionEnvironmentShifted)
	t.Logf("EnvironmentShifted %+v", shifted)
	if shifted == nil || shifted.Status != metav1.ConditionTrue || !cpuSlower.MatchString(shifted.Message) {
		t.Fatalf("a run beside CPU stress is not EnvironmentShifted by the machine probe's CPU part: %+v", shifted)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionRegressed); c == nil || c.Status != metav1.ConditionFalse {
		t.Fatalf("beside a slower machine the fall is not a regression, Regressed is %+v", c)
	}
	if c := res.Comparison; c == nil || c.Verdict != v1alpha1.VerdictEnvironmentShifted || c.Regressed {
		t.Fatalf("the stressed run's comparison: %+v", c)
	}
	judged := time.Now()
	suspend := got.DeepCopy()
	suspend.Spec.Suspend = true
	if err := k8s.Patch(ctx, suspend, client.MergeFrom(got)); err != nil {
		t.Fatalf("suspend the schedule: %v", err)
	}
	// Every run started since the stress did (the schedule's Active aside, which a
	// failed status write can leave behind) finished, and the last compared.
	waitFor(t, 5*time.Minute, "the runs started under the stress finished and judged", func() bool {
		var last *v1alpha1.SerializationExperiment
		for _, x := range runs() {
			if before[x.Name] {
				continue
			}
			if x.Status.Stage != v1alpha1.StageSucceeded && x.Status.Stage != v1alpha1.StageFailed {
				return false
			}
			if last == nil || x.CreationTimestamp.After(last.CreationTimestamp.Time) {
				last = &x
			}
		}
		got = schedule()
		if last == nil || got.Status.LastComparedRun != last.Name {
			return false
		}
		if !meta.IsStatusConditionTrue(got.Status.Conditions, v1alpha1.ConditionEnvironmentShifted) {
			t.Fatalf("run %s, started under the stress too, is not EnvironmentShifted: %+v", last.Name,
				meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionRegressed))
		}
		return true
	})
	stop()
	waitFor(t, 3*time.Minute, "SerdebenchEnvironmentShifted firing in Prometheus", func() bool { return alertFiring(t, shiftedAlert) })
	t.Logf("SerdebenchEnvironmentShifted firing in Prometheus %s after the run was judged", time.Since(judged).Round(time.Second))
}

// cpuSlower finds the machine probe's CPU part found slower in a condition's
// message (compare.Result.Machine).
var cpuSlower = regexp.MustCompile(`cpu \+[0-9.]+ %, at most \+[0-9.]+ % \(slower\)`)

// stressBeside runs the stressor (e2e/stressor) as a pod on node, requesting
// stressCPU, and waits until it runs; stop deletes it and waits until it is gone
// (the test's cleanup does too; stop may be called again).
func stressBeside(t *testing.T, node string) (stop func()) {
	t.Helper()
	ctx := context.Background()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: stressorName, Namespace: namespace, Labels: map[string]string{"e2e": "stressor"}},
		Spec: corev1.PodSpec{
			NodeSelector:  map[string]string{corev1.LabelHostname: node},
			RestartPolicy: corev1.RestartPolicyNever,
			// A test killed by go test's timeout runs no cleanup: the kubelet ends
			// the stress then, before the next run's baseline.
			ActiveDeadlineSeconds:         ptr(int64(600)),
			TerminationGracePeriodSeconds: ptr(int64(1)),
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(65532)),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{
				Name: "stressor", Image: stressorImage(t), ImagePullPolicy: corev1.PullIfNotPresent,
				Args:      []string{"-per-cpu", "2"},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: stressCPU}},
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr(false), ReadOnlyRootFilesystem: ptr(true),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
			}},
		},
	}
	removeStressor(t) // a leftover of an interrupted run
	if free := unrequestedCPU(t, node); free.Cmp(stressCPU) < 0 {
		t.Fatalf("node %s has %s CPU its pods do not request, the stressor needs %s: the stress would wait Pending", node, free.String(), stressCPU.String())
	}
	if err := k8s.Create(ctx, pod.DeepCopy()); err != nil {
		t.Fatalf("create the stressor pod: %v", err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			removeStressor(t)
			t.Log("CPU stress ended")
		}
	}
	t.Cleanup(stop)
	waitFor(t, time.Minute, "the stressor pod running", func() bool {
		got := &corev1.Pod{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(pod), got); err != nil {
			t.Fatal(err)
		}
		if got.Status.Phase == corev1.PodFailed || got.Status.Phase == corev1.PodSucceeded {
			t.Fatalf("the stressor pod ended: %s %s", got.Status.Phase, got.Status.Message)
		}
		return got.Status.Phase == corev1.PodRunning
	})
	t.Logf("CPU stress beside the workers on %s: the stressor requests %s, each worker %s", node, stressCPU.String(), workerCPU.String())
	return stop
}

// unrequestedCPU is the allocatable CPU of the node labelled hostname less what
// its pods that have not ended request (the scheduler's arithmetic).
func unrequestedCPU(t *testing.T, hostname string) resource.Quantity {
	t.Helper()
	nodes := &corev1.NodeList{}
	if err := k8s.List(context.Background(), nodes, client.MatchingLabels{corev1.LabelHostname: hostname}); err != nil || len(nodes.Items) != 1 {
		t.Fatalf("the node labelled %s=%s: %v (%d found)", corev1.LabelHostname, hostname, err, len(nodes.Items))
	}
	n := nodes.Items[0]
	free := n.Status.Allocatable.Cpu().DeepCopy()
	pods, err := clientset.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{FieldSelector: "spec.nodeName=" + n.Name})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, c := range p.Spec.Containers {
			free.Sub(*c.Resources.Requests.Cpu())
		}
	}
	return free
}

// stressorName is the stressor pod's, in the e2e namespace.
const stressorName = "e2e-stressor"

// removeStressor deletes the stressor pod, if any, and waits until it is gone:
// TestScheduleOnCluster calls it first, so that an interrupted run's stress
// cannot slow its baseline.
func removeStressor(t *testing.T) {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: stressorName, Namespace: namespace}}
	_ = k8s.Delete(context.Background(), pod, client.GracePeriodSeconds(0))
	waitFor(t, time.Minute, "the stressor pod gone", func() bool {
		return apierrors.IsNotFound(k8s.Get(context.Background(), client.ObjectKeyFromObject(pod), &corev1.Pod{}))
	})
}

// stressorImage builds e2e/stressor into an image, as hack/image builds the
// operator's, and loads it into the cluster as the stack loads its own images
// (hack/stack/stack.sh load: the local cluster's containerd, else
// SERDEBENCH_IMAGE_LOAD's command; an error where neither reaches the nodes).
func stressorImage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin, tar := filepath.Join(dir, "stressor"), filepath.Join(dir, "stressor.tar")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./e2e/stressor")
	build.Dir, build.Env = repo, append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the stressor: %v\n%s", err, out)
	}
	img := exec.Command("go", "run", "./hack/image", "-binary", bin, "-ref", "serdebench.local/e2e-stressor:v1", "-out", tar,
		"-description", "serdebench e2e: CPU stress beside the workers")
	img.Dir = repo
	out, err := img.Output()
	if err != nil {
		t.Fatalf("image the stressor: %v", err)
	}
	if msg, err := exec.Command(filepath.Join(repo, "hack/stack/stack.sh"), "load", tar).CombinedOutput(); err != nil {
		t.Fatalf("load the stressor's image: %v\n%s", err, msg)
	}
	return strings.TrimSpace(string(out))
}
