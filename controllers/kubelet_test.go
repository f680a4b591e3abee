package controllers_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/serdebench/serdebench/internal/testing/jvmtest"
	"github.com/serdebench/serdebench/internal/topics"
	"github.com/serdebench/serdebench/workers/run"
)

// kubelet stands in for the kubelet and the Job controller, which envtest does not
// run: for every Job in its namespace it runs each pod's containers — the real
// worker, with the Job's exact arguments — against the real broker, records them as
// Pods with their termination messages, and sets the Job's status. It also stands in
// for Strimzi's Topic Operator (topicOperator): it creates each KafkaTopic's topic
// in the real broker and reports the KafkaTopic's status as the real one does.
type kubelet struct {
	t       *testing.T
	ns      string
	brokers []string

	mu sync.Mutex
	// jobs counts how often each Job name was run (each distinct Job object, by
	// UID, runs once: a Job deleted and re-created under its name counts twice).
	jobs map[string]int
	seen map[types.UID]bool
	// failRole makes Jobs of this role fail with an error message instead of running.
	failRole string
	// evict[role] is how many more Jobs of that role have their first pod evicted
	// one second into the run: the DisruptionTarget condition, as the eviction API
	// sets it, then SIGTERM; the pod's phase follows its exit codes.
	evict map[string]int
	// interrupt[role] sends that role's containers SIGTERM one second into the run,
	// without a disruption condition (a worker stopped from outside).
	interrupt map[string]bool
	// running cancels the containers of a started Job (by UID): deleting a Job
	// stops its pods.
	running map[types.UID]context.CancelFunc
	// hold keeps Jobs active (not run) while true.
	hold bool
	// topicsReady false stops the Topic Operator: KafkaTopics get no status and
	// keep its finalizer.
	topicsReady bool
	// metricsTarget, if set, is told every scrape target the PodMonitor would
	// select: each declared container port named metrics* at its pod's IP, with the
	// pod's namespace (a Prometheus scraping them).
	metricsTarget func(addr, namespace string)
	// topicsSeen are KafkaTopic names seen; created are topics made in the broker.
	topicsSeen map[string]bool
	created    map[string]bool
	// logs are container logs by "pod/container", served to the operator as the
	// kubelet's log endpoint would; live are those of running containers so far.
	logs map[string][]byte
	live map[string]*liveLog
}

// liveLog is a running container's log: written by the worker, read by the operator.
type liveLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *liveLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *liveLog) bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.buf.Bytes())
}

// podLogs serves a recorded container's log.
func (k *kubelet) podLogs(_ context.Context, _, pod, container string) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if l, ok := k.logs[pod+"/"+container]; ok {
		return l, nil
	}
	if l, ok := k.live[pod+"/"+container]; ok {
		return l.bytes(), nil
	}
	return nil, fmt.Errorf("no log for %s/%s", pod, container)
}

func newKubelet(t *testing.T, ns string, brokers []string) *kubelet {
	k := &kubelet{t: t, ns: ns, brokers: brokers, jobs: map[string]int{}, seen: map[types.UID]bool{}, evict: map[string]int{}, interrupt: map[string]bool{}, running: map[types.UID]context.CancelFunc{}, topicsReady: true, topicsSeen: map[string]bool{}, created: map[string]bool{}, logs: map[string][]byte{}, live: map[string]*liveLog{}}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); k.loop(ctx, &wg) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return k
}

func (k *kubelet) set(f func(k *kubelet)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	f(k)
}

// jobRuns is a snapshot of how often each Job ran.
func (k *kubelet) jobRuns() map[string]int {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]int{}
	for n, c := range k.jobs {
		out[n] = c
	}
	return out
}

// topicCount is the number of KafkaTopics seen.
func (k *kubelet) topicCount() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.topicsSeen)
}

func (k *kubelet) loop(ctx context.Context, wg *sync.WaitGroup) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		k.topicOperator(ctx)
		jobs := &batchv1.JobList{}
		if err := k8s.List(ctx, jobs, client.InNamespace(k.ns)); err != nil {
			continue
		}
		present := map[types.UID]bool{}
		for i := range jobs.Items {
			j := jobs.Items[i]
			if j.DeletionTimestamp == nil {
				present[j.UID] = true
			}
			role := j.Labels["serdebench.io/role"]
			// Like the kubelet, a pod whose Secret or ConfigMap volume cannot be
			// mounted does not start: it waits (FailedMount), retried every tick.
			mountable := k.mountable(ctx, j.Spec.Template.Spec.Volumes)
			k.mu.Lock()
			start := !k.hold && !k.seen[j.UID] && j.DeletionTimestamp == nil && mountable
			var how runHow
			if start {
				k.seen[j.UID] = true
				k.jobs[j.Name]++
				how.fail = k.failRole != "" && role == k.failRole
				if k.evict[role] > 0 {
					k.evict[role]--
					how.evict = true
				}
				how.interrupt = k.interrupt[role]
			}
			k.mu.Unlock()
			if start {
				jobCtx, cancel := context.WithCancel(ctx)
				k.mu.Lock()
				k.running[j.UID] = cancel
				k.mu.Unlock()
				wg.Add(1)
				go func() { defer wg.Done(); defer cancel(); k.runJob(jobCtx, &j, how) }()
			}
		}
		// A deleted Job's pods are stopped.
		k.mu.Lock()
		for uid, cancel := range k.running {
			if !present[uid] {
				cancel()
				delete(k.running, uid)
			}
		}
		k.mu.Unlock()
	}
}

// topicOperator stands in for Strimzi's Topic Operator as the real one (1.2.0, run
// in e2e/strimzi_test.go) behaves: it reconciles only KafkaTopics labelled
// strimzi.io/cluster=my-cluster; adds its finalizer before it creates the topic;
// reports status.observedGeneration, topicName and a Ready condition, Ready=False
// with Strimzi's reason and message when Kafka refuses the topic (more replicas than
// brokers); leaves a KafkaTopic annotated strimzi.io/managed: "false" alone; and on
// deletion deletes the topic in Kafka before it removes its finalizer. With
// topicsReady false it is stopped: nothing is reconciled, finalizers included.
func (k *kubelet) topicOperator(ctx context.Context) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(strimziGVK(k.t, topics.KindKafkaTopic).GroupVersion().WithKind("KafkaTopicList"))
	if err := k8s.List(ctx, list, client.InNamespace(k.ns)); err != nil {
		return
	}
	k.mu.Lock()
	running := k.topicsReady
	for i := range list.Items {
		k.topicsSeen[list.Items[i].GetName()] = true
	}
	k.mu.Unlock()
	if !running {
		return
	}
	admin := &topics.Admin{Brokers: k.brokers}
	for i := range list.Items {
		kt := &list.Items[i]
		if kt.GetLabels()[topics.LabelCluster] != standInCluster || kt.GetAnnotations()[topics.AnnotationManaged] == "false" {
			continue
		}
		if kt.GetDeletionTimestamp() != nil {
			if err := admin.Delete(ctx, kt.GetName()); err != nil {
				continue
			}
			k.mu.Lock()
			delete(k.created, kt.GetName())
			k.mu.Unlock()
			if controllerutil.RemoveFinalizer(kt, topics.Finalizer) {
				if err := k8s.Update(ctx, kt); err != nil && !apierrors.IsNotFound(err) {
					k.t.Logf("topic operator: remove finalizer: %v", err)
				}
			}
			continue
		}
		if observed, _, _ := unstructured.NestedInt64(kt.Object, "status", "observedGeneration"); observed == kt.GetGeneration() {
			continue
		}
		if controllerutil.AddFinalizer(kt, topics.Finalizer) {
			if err := k8s.Update(ctx, kt); err != nil {
				continue
			}
		}
		parts, _, _ := unstructured.NestedInt64(kt.Object, "spec", "partitions")
		replicas, _, _ := unstructured.NestedInt64(kt.Object, "spec", "replicas")
		ready := map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}
		if int(replicas) > len(k.brokers) {
			// Strimzi 1.2.0's words, as the real one reported them against one broker.
			ready["status"], ready["reason"] = "False", "KafkaError"
			ready["message"] = fmt.Sprintf("org.apache.kafka.common.errors.InvalidReplicationFactorException: Unable to replicate the partition %d time(s): The target replication factor of %d cannot be reached because only %d broker(s) are registered or some brokers have all their log directories cordoned.", replicas, replicas, len(k.brokers))
		} else {
			ok, err := admin.Ensure(ctx, topics.Spec{Name: kt.GetName(), Partitions: int32(parts), Replicas: int32(replicas)})
			if err != nil || !ok {
				continue
			}
			k.mu.Lock()
			k.created[kt.GetName()] = true
			k.mu.Unlock()
		}
		_ = unstructured.SetNestedField(kt.Object, kt.GetName(), "status", "topicName")
		_ = unstructured.SetNestedSlice(kt.Object, []any{ready}, "status", "conditions")
		_ = unstructured.SetNestedField(kt.Object, kt.GetGeneration(), "status", "observedGeneration")
		if err := k8s.Status().Update(ctx, kt); err != nil {
			k.t.Logf("topic operator: %v", err)
		}
	}
}

// standInCluster is the Strimzi cluster whose KafkaTopics the stand-in reconciles
// (its STRIMZI_RESOURCE_LABELS), the one the tests' experiments name.
const standInCluster = "my-cluster"

// createKafka creates the Kafka resource of standInCluster in ns, declaring the
// local broker's release (nothing here runs Strimzi's Cluster Operator).
func createKafka(t *testing.T, ns string) {
	t.Helper()
	kafka := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"kafka": map[string]any{"version": "4.3.1",
			"listeners": []any{map[string]any{"name": "plain", "port": int64(9092), "type": "internal", "tls": false}}}}}}
	kafka.SetGroupVersionKind(strimziGVK(t, topics.KindKafka))
	kafka.SetNamespace(ns)
	kafka.SetName(standInCluster)
	if err := k8s.Create(context.Background(), kafka); err != nil {
		t.Fatal(err)
	}
}

// terminate stops a process the test started: SIGTERM, then SIGKILL after grace;
// exited is closed once it has been waited for.
func terminate(p *os.Process, exited <-chan struct{}, grace time.Duration) {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(grace):
		_ = p.Kill()
		<-exited
	}
}

type containerResult struct {
	name     string
	exitCode int32
	message  string
	log      []byte
}

// podIPs hands out a loopback address per pod: the pod's network namespace. Its
// containers share it, so two of them listening on one port clash as in a real
// pod. (Counted process-wide: a finished pod's metrics server may still serve.
// The second octet comes from the process, so two test processes never share an
// address.)
var podIPs atomic.Uint32

func nextPodIP() string {
	n := podIPs.Add(1)
	return fmt.Sprintf("127.%d.%d.%d", 1+os.Getpid()%200, (n/250)%256, 1+n%250)
}

// runHow is how the stand-in runs one Job's pods.
type runHow struct {
	fail, evict, interrupt bool
}

// runJob runs every index of the Job, then records Pods and the Job's status, as
// the Job controller would; a Job deleted meanwhile records nothing.
func (k *kubelet) runJob(ctx context.Context, j *batchv1.Job, how runHow) {
	n := int(*j.Spec.Completions)
	results := make([][]containerResult, n)
	// The Job controller stops the other pods of a Job it has failed.
	podCtx, stopPods := context.WithCancel(ctx)
	defer stopPods()
	var wg, first sync.WaitGroup
	pods := make([]*corev1.Pod, n)
	for idx := range n {
		podIP := nextPodIP()
		// As the kubelet: the pod is Running, its containers started, while they run.
		pods[idx] = k.startPod(ctx, j, idx, podIP)
		k.mu.Lock()
		register := k.metricsTarget
		k.mu.Unlock()
		if register != nil {
			for _, c := range j.Spec.Template.Spec.Containers {
				for _, p := range c.Ports {
					if strings.HasPrefix(p.Name, "metrics") {
						register(fmt.Sprintf("%s:%d", podIP, p.ContainerPort), j.Namespace)
					}
				}
			}
		}
		results[idx] = make([]containerResult, len(j.Spec.Template.Spec.Containers))
		for ci, c := range j.Spec.Template.Spec.Containers {
			wg.Add(1)
			if idx == 0 {
				first.Add(1)
			}
			go func() {
				defer wg.Done()
				if idx == 0 {
					defer first.Done()
				}
				cctx := podCtx
				if (how.evict && idx == 0) || how.interrupt {
					var cancel context.CancelFunc
					cctx, cancel = context.WithTimeout(podCtx, time.Second) // then SIGTERM
					defer cancel()
				}
				results[idx][ci] = k.runContainer(cctx, j.Spec.Template.Spec.Volumes, c, idx, podIP, how.fail, k.liveLog(pods[idx], c.Name))
			}()
		}
	}
	if how.evict {
		// The evicted pod fails first; its DisruptionTarget condition matches the
		// Job's FailJob rule, so the Job fails and its other pods are stopped. (The
		// real controller writes Failed only once they have terminated, and they
		// leave Pod objects; the operator acts on Failed either way.)
		first.Wait()
		if ctx.Err() != nil {
			wg.Wait()
			return
		}
		ok, pod := k.recordPod(ctx, j, 0, pods[0], results[0], true)
		if !ok {
			k.finishJob(ctx, j, 0, 1, []string{pod})
			stopPods()
			wg.Wait()
			return
		}
		// It had already succeeded: the condition changes nothing.
	}
	wg.Wait()
	if ctx.Err() != nil {
		return
	}
	failed := 0
	for idx := range n {
		if how.evict && idx == 0 {
			continue // recorded above
		}
		if ok, _ := k.recordPod(ctx, j, idx, pods[idx], results[idx], false); !ok {
			failed++
		}
	}
	k.finishJob(ctx, j, n-failed, failed, nil)
}

// runContainer runs the worker with the container's own arguments, as the kubelet
// would: $(JOB_COMPLETION_INDEX) expanded, /dev/termination-log, Secret and ConfigMap volumes
// mounted (here: files in a temporary directory), and the pod's network namespace
// (a listen address without a host binds to the pod's IP).
func (k *kubelet) runContainer(ctx context.Context, volumes []corev1.Volume, c corev1.Container, idx int, podIP string, fail bool, stderr *liveLog) containerResult {
	if fail {
		return containerResult{name: c.Name, exitCode: 1, message: `{"level":"ERROR","msg":"worker failed","err":"connect to Kafka at [10.0.0.1:9092]: connection refused"}`}
	}
	term := filepath.Join(k.t.TempDir(), fmt.Sprintf("%s-%d-termination-log", c.Name, idx))
	args := make([]string, 0, len(c.Args))
	for _, a := range c.Args {
		a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", fmt.Sprint(idx))
		a = strings.ReplaceAll(a, corev1.TerminationMessagePathDefault, term)
		if addr, ok := strings.CutPrefix(a, "--metrics-addr=:"); ok {
			a = "--metrics-addr=" + podIP + ":" + addr
		}
		args = append(args, a)
	}
	env, err := k.resolveEnv(ctx, c)
	if err == nil {
		args, err = k.mountVolumes(ctx, volumes, c, args)
	}
	if err != nil {
		return containerResult{name: c.Name, exitCode: 1, message: err.Error()}
	}
	var stdout bytes.Buffer
	var code int
	if c.Image == jvmWorkerImage {
		code = k.runJVM(ctx, args, env, &stdout, stderr)
	} else {
		code = run.Main(ctx, args, func(key string) string { return env[key] }, &stdout, stderr)
	}
	msg, _ := os.ReadFile(term)
	if code != 0 && len(msg) == 0 { // TerminationMessagePolicy FallbackToLogsOnError
		msg = stderr.bytes()
	}
	if code != 0 {
		k.t.Logf("worker %s/%d exited %d: %s", c.Name, idx, code, stderr.bytes())
	}
	// The container log: stderr (the worker's JSON logs), then stdout, whose last
	// line is the summary.
	log := append(stderr.bytes(), stdout.Bytes()...)
	return containerResult{name: c.Name, exitCode: int32(code), message: string(msg), log: log}
}

// jvmWorkerImage is the test operator's JVM worker image: its containers run the
// JVM worker (hack/jvm/build.sh) as a process with the container's arguments and
// environment, stopped with SIGTERM as the kubelet stops a container.
const jvmWorkerImage = "serdebench/worker-jvm:test"

// runJVM runs a JVM worker container and returns its exit code.
func (k *kubelet) runJVM(ctx context.Context, args []string, env map[string]string, stdout *bytes.Buffer, stderr *liveLog) int {
	argv, err := jvmtest.Build()
	if err != nil {
		k.t.Errorf("%v", err)
		return 1
	}
	cmd := exec.Command(argv[0], append(argv[1:], args...)...)
	cmd.Env = os.Environ()
	for key, v := range env {
		cmd.Env = append(cmd.Env, key+"="+v)
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		k.t.Errorf("start the JVM worker: %v", err)
		return 1
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
		case <-done:
		}
	}()
	_ = cmd.Wait()
	close(done)
	return cmd.ProcessState.ExitCode()
}

// liveLog registers a log for the container of pod (nil: a pod that was never
// created, whose log nobody can read).
func (k *kubelet) liveLog(pod *corev1.Pod, container string) *liveLog {
	l := &liveLog{}
	if pod != nil {
		k.mu.Lock()
		k.live[pod.Name+"/"+container] = l
		k.mu.Unlock()
	}
	return l
}

// resolveEnv gives the container the environment its spec declares, reading Secret
// references as the kubelet would (a pod does not inherit the host's environment).
func (k *kubelet) resolveEnv(ctx context.Context, c corev1.Container) (map[string]string, error) {
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			sec := &corev1.Secret{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: k.ns, Name: ref.Name}, sec); err != nil {
				return nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
			v, ok := sec.Data[ref.Key]
			if !ok {
				return nil, fmt.Errorf("env %s: secret %s has no key %s", e.Name, ref.Name, ref.Key)
			}
			env[e.Name] = string(v)
		default:
			env[e.Name] = e.Value
		}
	}
	return env, nil
}

// mountVolumes writes the container's Secret and ConfigMap volumes to temporary
// directories, as the kubelet mounts them (a ConfigMap's items by key and path, a
// missing key failing the mount), and points arguments at them (one process has
// one filesystem).
func (k *kubelet) mountVolumes(ctx context.Context, volumes []corev1.Volume, c corev1.Container, args []string) ([]string, error) {
	for _, m := range c.VolumeMounts {
		for _, v := range volumes {
			if v.Name != m.Name {
				continue
			}
			files, err := k.volumeFiles(ctx, v)
			if err != nil {
				return nil, fmt.Errorf("volume %s: %w", v.Name, err)
			}
			if files == nil {
				continue // not a Secret or ConfigMap
			}
			dir := k.t.TempDir()
			for name, val := range files {
				if err := os.WriteFile(filepath.Join(dir, name), val, 0o600); err != nil {
					return nil, err
				}
			}
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, m.MountPath, dir)
			}
		}
	}
	return args, nil
}

// configMapFiles are the files a ConfigMap volume holds: its items' keys (from data
// or binaryData) at their paths, or every key without items; a missing key fails the
// mount.
func configMapFiles(ctx context.Context, ns string, src *corev1.ConfigMapVolumeSource) (map[string][]byte, error) {
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: src.Name}, cm); err != nil {
		return nil, err
	}
	all := map[string][]byte{}
	for key, v := range cm.Data {
		all[key] = []byte(v)
	}
	for key, v := range cm.BinaryData {
		all[key] = v
	}
	if len(src.Items) == 0 {
		return all, nil
	}
	files := map[string][]byte{}
	for _, it := range src.Items {
		v, ok := all[it.Key]
		if !ok {
			return nil, fmt.Errorf("configmap %s has no key %s", cm.Name, it.Key)
		}
		files[it.Path] = v
	}
	return files, nil
}

// mountable reports whether every Secret and ConfigMap volume can be mounted now.
func (k *kubelet) mountable(ctx context.Context, volumes []corev1.Volume) bool {
	for _, v := range volumes {
		if _, err := k.volumeFiles(ctx, v); err != nil {
			return false
		}
	}
	return true
}

// volumeFiles are the files a Secret or ConfigMap volume holds (nil for other
// volumes), or why it cannot be mounted.
func (k *kubelet) volumeFiles(ctx context.Context, v corev1.Volume) (map[string][]byte, error) {
	switch {
	case v.Secret != nil:
		sec := &corev1.Secret{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: k.ns, Name: v.Secret.SecretName}, sec); err != nil {
			return nil, err
		}
		files := map[string][]byte{} // non-nil, even for an empty Secret
		for key, val := range sec.Data {
			files[key] = val
		}
		return files, nil
	case v.ConfigMap != nil:
		return configMapFiles(ctx, k.ns, v.ConfigMap)
	}
	return nil, nil
}

// recordPod creates the Pod the Job controller would have created (admission,
// including Pod Security, checks it) and sets its terminated status.
// startPod creates the Job's pod idx as Running, each container started now (nil
// if it cannot: the error is reported, and recordPod creates it at the end).
func (k *kubelet) startPod(ctx context.Context, j *batchv1.Job, idx int, podIP string) *corev1.Pod {
	labels := map[string]string{"batch.kubernetes.io/job-name": j.Name, "batch.kubernetes.io/job-completion-index": fmt.Sprint(idx)}
	for key, v := range j.Spec.Template.Labels {
		labels[key] = v
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: j.Name + "-", Namespace: j.Namespace, Labels: labels,
			Annotations:     map[string]string{batchv1.JobCompletionIndexAnnotation: fmt.Sprint(idx)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(j, batchv1.SchemeGroupVersion.WithKind("Job"))}},
		Spec: *j.Spec.Template.Spec.DeepCopy(),
	}
	pod.Spec.NodeName = "envtest-node"
	if err := k8s.Create(ctx, pod); err != nil {
		if ctx.Err() == nil {
			k.t.Errorf("create pod for job %s: %v", j.Name, err)
		}
		return nil
	}
	now := metav1.Now()
	pod.Status.Phase = corev1.PodRunning
	pod.Status.PodIP = podIP
	for _, c := range pod.Spec.Containers {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image, Ready: true, Started: ptr(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}})
	}
	if err := k8s.Status().Update(ctx, pod); err != nil && ctx.Err() == nil {
		k.t.Errorf("mark pod %s running: %v", pod.Name, err)
	}
	return pod
}

func (k *kubelet) recordPod(ctx context.Context, j *batchv1.Job, idx int, started *corev1.Pod, res []containerResult, evicted bool) (bool, string) {
	pod := started
	if pod == nil {
		if pod = k.startPod(ctx, j, idx, ""); pod == nil {
			return false, ""
		}
	}
	startedAt := metav1.Now()
	if len(pod.Status.ContainerStatuses) > 0 && pod.Status.ContainerStatuses[0].State.Running != nil {
		startedAt = pod.Status.ContainerStatuses[0].State.Running.StartedAt
	}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
		k.t.Errorf("get pod %s: %v", pod.Name, err)
		return false, ""
	}
	pod.Status.ContainerStatuses = nil
	k.mu.Lock()
	for _, r := range res {
		k.logs[pod.Name+"/"+r.name] = r.log
	}
	k.mu.Unlock()
	ok := true
	now := metav1.Now()
	for _, r := range res {
		reason := "Completed"
		if r.exitCode != 0 {
			reason, ok = "Error", false
		}
		img := pod.Spec.Containers[0].Image
		// As containerd reports it: the repository and the manifest digest it resolved.
		imageID := strings.SplitN(strings.SplitN(img, "@", 2)[0], ":", 2)[0] + fmt.Sprintf("@sha256:%x", sha256.Sum256([]byte(img)))
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{Name: r.name, Image: img, ImageID: imageID,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: r.exitCode, Reason: reason, Message: r.message, StartedAt: startedAt, FinishedAt: now}}})
	}
	pod.Status.Phase = corev1.PodSucceeded
	if !ok {
		pod.Status.Phase = corev1.PodFailed
	}
	if evicted {
		// The eviction API sets the condition; the phase still follows the exit codes.
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting", LastTransitionTime: now})
	}
	if err := k8s.Status().Update(ctx, pod); err != nil {
		k.t.Errorf("update pod status: %v", err)
	}
	return ok, pod.Name
}

// finishJob sets the terminal conditions the Job controller would set: a failed pod
// with a condition that matches a FailJob rule of the Job's podFailurePolicy fails
// the Job with reason PodFailurePolicy; other failures exhaust backoffLimit 0.
func (k *kubelet) finishJob(ctx context.Context, j *batchv1.Job, succeeded, failed int, disrupted []string) {
	cur := &batchv1.Job{}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(j), cur); err != nil {
		return // deleted meanwhile
	}
	now := metav1.Now()
	start := metav1.NewTime(now.Add(-time.Second))
	cur.Status.StartTime = &start
	cur.Status.Active = 0
	if rule := failJobRule(j, corev1.DisruptionTarget); failed > 0 && len(disrupted) > 0 && rule >= 0 {
		msg := fmt.Sprintf("Pod %s/%s has condition DisruptionTarget matching FailJob rule at index %d", j.Namespace, disrupted[0], rule)
		cur.Status.Failed = int32(failed)
		cur.Status.Conditions = append(cur.Status.Conditions,
			batchv1.JobCondition{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonPodFailurePolicy, Message: msg, LastTransitionTime: now},
			batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonPodFailurePolicy, Message: msg, LastTransitionTime: now})
	} else if failed > 0 {
		cur.Status.Failed = int32(failed)
		cur.Status.Conditions = append(cur.Status.Conditions,
			batchv1.JobCondition{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now},
			batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now})
	} else {
		cur.Status.Succeeded = int32(succeeded)
		// As the Job controller: completed indexes only in Indexed mode.
		if m := j.Spec.CompletionMode; m != nil && *m == batchv1.IndexedCompletion {
			cur.Status.CompletedIndexes = fmt.Sprintf("0-%d", succeeded-1)
			if succeeded == 1 {
				cur.Status.CompletedIndexes = "0"
			}
		}
		cur.Status.CompletionTime = &now
		cur.Status.Conditions = append(cur.Status.Conditions,
			batchv1.JobCondition{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now},
			batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now})
	}
	if err := k8s.Status().Update(ctx, cur); err != nil {
		k.t.Errorf("update job %s status: %v", j.Name, err)
	}
}

// failJobRule is the index of the Job's first podFailurePolicy rule that fails the
// Job on the given pod condition, or -1.
func failJobRule(j *batchv1.Job, cond corev1.PodConditionType) int {
	if j.Spec.PodFailurePolicy == nil {
		return -1
	}
	for i, r := range j.Spec.PodFailurePolicy.Rules {
		for _, p := range r.OnPodConditions {
			if p.Type == cond && p.Status == corev1.ConditionTrue {
				if r.Action == batchv1.PodFailurePolicyActionFailJob {
					return i
				}
				return -1 // the first matching rule decides
			}
		}
	}
	return -1
}
