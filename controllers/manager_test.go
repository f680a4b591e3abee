package controllers_test

import (
	"bytes"
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/testing/promtest"
)

// TestManagerBinary runs the real cmd/manager against the test apiserver: it
// answers its health probes, reconciles an experiment, and stops cleanly on SIGTERM.
func TestManagerBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "manager")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/manager").CombinedOutput(); err != nil {
		t.Fatalf("build manager: %v\n%s", err, out)
	}
	kc := managerKubeconfig(t, "manager-test")
	probes := promtest.FreeAddr(t)
	cmd := exec.Command(bin, "--kubeconfig="+kc, "--metrics-bind-address=0", "--health-probe-bind-address="+probes,
		"--poll-interval=200ms", "--worker-image=serdebench/worker:test")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	waitFor(t, 30*time.Second, "manager probes", func() (bool, error) {
		for _, path := range []string{"/healthz", "/readyz"} {
			resp, err := http.Get("http://" + probes + path)
			if err != nil {
				return false, err
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return false, nil
			}
		}
		return true, nil
	})
	ns := newNamespace(t)
	// No broker at this address: the experiment is accepted and waits for its topic.
	create(t, experiment(ns, "via-binary", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: "127.0.0.1:1"}
	}))
	waitStage(t, ns, "via-binary", serdebenchv1.StageRunning, 30*time.Second)
	if err := k8s.Delete(context.Background(), get(t, ns, "via-binary")); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("manager exit: %v\n%s", err, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("manager did not stop on SIGTERM\n%s", logs.String())
	}
}
