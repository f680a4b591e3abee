package controllers_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/internal/topics"
)

// TestRealTopicOperator runs Strimzi's own Topic Operator, built from its release
// source (hack/strimzi/build.sh), against this test apiserver and the real broker,
// under Strimzi's own Role, in place of the stand-in: for the current line (1.2.0,
// kafka.strimzi.io/v1 only) and the previous one (0.51.0, which serves v1 and
// v1beta2; with its CRDs installed). An experiment's KafkaTopics are made and
// deleted by it, and a topic it refuses fails the trial with its words.
func TestRealTopicOperator(t *testing.T) {
	for _, version := range []string{"1.2.0", "0.51.0"} {
		t.Run(version, func(t *testing.T) { realTopicOperator(t, version) })
	}
}

// realTopicOperator runs experiments through Strimzi version's Topic Operator.
// Both lines' Topic Operators read KafkaTopics at v1 (0.51.0's exits when v1 is not
// served), so serdebench speaks v1 to both; its v1beta2 path (clusters serving
// only v1beta2, Strimzi 0.4x before 0.49) is checked against 0.45's CRDs with the
// stand-in (TestStrimzi).
func realTopicOperator(t *testing.T, version string) {
	brokers := kafkatest.Brokers(t)
	jars, src := strimziBuild(t, version, "jars"), strimziBuild(t, version, "source")
	install := filepath.Join(src, "packaging", "install")
	if version != "1.2.0" {
		// This line's own CRDs (both versions served), for this test.
		dir := t.TempDir()
		for _, f := range []string{"topic-operator/04-Crd-kafkatopic.yaml", "cluster-operator/040-Crd-kafka.yaml"} {
			raw, err := os.ReadFile(filepath.Join(install, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), raw, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		useStrimziCRDs(t, dir)
	}
	ns := newNamespace(t)
	kc := topicOperatorKubeconfig(t, ns, filepath.Join(install, "topic-operator", "02-Role-strimzi-topic-operator.yaml"))
	startTopicOperator(t, jars, version, kc, ns, brokers[0])

	k := newKubelet(t, ns, brokers)
	k.set(func(k *kubelet) { k.topicsReady = false }) // the real one runs instead of the stand-in
	createKafka(t, ns)
	startManager(t, nil, k)
	gv := strimziGVK(t, topics.KindKafkaTopic).GroupVersion()
	if gv.Version != "v1" {
		t.Fatalf("serdebench speaks %s, want v1", gv)
	}
	t.Logf("Strimzi %s's Topic Operator; serdebench speaks %s", version, gv)

	create(t, experiment(ns, "real-to", nil))
	x := waitStage(t, ns, "real-to", serdebenchv1.StageSucceeded, 2*time.Minute)
	checkResult(t, result(t, ns, x.Status.ResultRef.Name), 2)
	for _, ts := range x.Status.Trials {
		if err := (&topics.Admin{Brokers: brokers}).Check(context.Background(), ts.Topic, 3); err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("topic %s after its trial (cleanupPolicy Delete): %v, want it gone", ts.Topic, err)
		}
	}
	if left := kafkaTopics(t, ns); len(left) != 0 {
		t.Fatalf("KafkaTopics left: %v", left)
	}

	create(t, experiment(ns, "real-to-refused", func(x *serdebenchv1.SerializationExperiment) { x.Spec.Topic.Replicas = 2 }))
	x = waitStage(t, ns, "real-to-refused", serdebenchv1.StageFailed, time.Minute)
	c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed)
	if c == nil || c.Reason != controllers.ReasonTopicFailed || !strings.Contains(c.Message, "KafkaError: org.apache.kafka.common.errors.InvalidReplicationFactorException") {
		t.Fatalf("failed condition %+v", c)
	}
	t.Logf("refused: %s", c.Message)
	if err := k8s.Delete(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "refused experiment and its KafkaTopic gone", func() (bool, error) {
		err := k8s.Get(context.Background(), client.ObjectKeyFromObject(x), &serdebenchv1.SerializationExperiment{})
		return apierrors.IsNotFound(err) && len(kafkaTopics(t, ns)) == 0, fmt.Errorf("experiment: %w, KafkaTopics %v", err, kafkaTopics(t, ns))
	})
}

// strimziBuild runs hack/strimzi/build.sh for version and returns what it prints.
func strimziBuild(t *testing.T, version, what string) string {
	t.Helper()
	cmd := exec.Command("../hack/strimzi/build.sh", what)
	cmd.Env = append(os.Environ(), "STRIMZI_VERSION="+version)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/strimzi/build.sh %s (Strimzi %s): %v\n%s", what, version, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// topicOperatorKubeconfig is a kubeconfig for a user bound, in ns, to Strimzi's
// own Role for the Topic Operator (the file from its release).
func topicOperatorKubeconfig(t *testing.T, ns, roleFile string) string {
	t.Helper()
	raw, err := os.ReadFile(roleFile)
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{}
	if err := yaml.UnmarshalStrict(raw, role); err != nil {
		t.Fatalf("%s: %v", roleFile, err)
	}
	role.Namespace = ns
	user := "strimzi-topic-operator-" + ns
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}}}
	for _, o := range []client.Object{role, binding} {
		if err := k8s.Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	u, err := testEnv.AddUser(envtest.User{Name: user}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err = u.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	// envtest writes the client's EC key as PKCS#8 ("PRIVATE KEY"), which the Topic
	// Operator's Kubernetes client (fabric8) reads only as RSA ("Invalid DER: object
	// is not integer"); kubeadm and AKS write SEC 1 ("EC PRIVATE KEY") or RSA keys.
	cfg, err := clientcmd.Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, ai := range cfg.AuthInfos {
		block, _ := pem.Decode(ai.ClientKeyData)
		if block == nil || block.Type != "PRIVATE KEY" {
			continue
		}
		key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if ec, ok := key.(*ecdsa.PrivateKey); ok {
			der, err := x509.MarshalECPrivateKey(ec)
			if err != nil {
				t.Fatal(err)
			}
			ai.ClientKeyData = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
		}
	}
	kc, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startTopicOperator runs the Topic Operator's jars as Strimzi's image would (its
// main class, its environment) until the test ends, and waits until it is ready.
func startTopicOperator(t *testing.T, jars, version, kubeconfig, ns, bootstrap string) {
	t.Helper()
	java := javaAtLeast(t, 21)
	cp := filepath.Join(jars, "topic-operator-"+version+".jar") + string(os.PathListSeparator) + filepath.Join(jars, "lib", "*")
	mainClass, err := os.ReadFile(filepath.Join(jars, "main-class"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(java, "-XX:+ExitOnOutOfMemoryError", "-Xmx256m", "-cp", cp, strings.TrimSpace(string(mainClass)))
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "STRIMZI_NAMESPACE="+ns, "STRIMZI_KAFKA_BOOTSTRAP_SERVERS="+bootstrap,
		"STRIMZI_RESOURCE_LABELS="+topics.LabelCluster+"="+standInCluster, "STRIMZI_FULL_RECONCILIATION_INTERVAL_MS=120000",
		"STRIMZI_TLS_ENABLED=false")
	logPath := filepath.Join(t.TempDir(), "topic-operator.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Killed with the test process even when a -timeout panic skips the cleanup.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	// Its health endpoint is fixed at :8080: another answer there would be taken for it.
	if conn, err := net.DialTimeout("tcp", "127.0.0.1:8080", time.Second); err == nil {
		_ = conn.Close()
		t.Fatal("something already listens on 127.0.0.1:8080, where the Topic Operator serves /ready")
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		terminate(cmd.Process, exited, 20*time.Second)
		_ = logFile.Close()
		if t.Failed() {
			raw, _ := os.ReadFile(logPath)
			t.Logf("Topic Operator log:\n%s", tail(string(raw), 60))
		}
	})
	// Its health endpoint is fixed at :8080 (Strimzi does not make it configurable).
	waitFor(t, 90*time.Second, "Topic Operator ready", func() (bool, error) {
		select {
		case <-exited:
			raw, _ := os.ReadFile(logPath)
			t.Fatalf("Topic Operator exited: %v\n%s", waitErr, tail(string(raw), 60))
		default:
		}
		resp, err := http.Get("http://127.0.0.1:8080/ready")
		if err != nil {
			return false, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, fmt.Errorf("ready: %s", resp.Status)
	})
}

// javaAtLeast is a java binary of major version want or newer (hack/lib/java.sh).
func javaAtLeast(t *testing.T, want int) string {
	t.Helper()
	out, err := exec.Command("bash", "-c", fmt.Sprintf(". ../hack/lib/java.sh && java_at_least %d", want)).Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("no Java %d or newer (java, /usr/lib/jvm/*): %v", want, err)
	}
	return strings.TrimSpace(string(out))
}

func tail(s string, lines int) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}
