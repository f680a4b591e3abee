//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// notThisMachine says why CPU stress started on this machine would not be beside
// the cluster's workers ("" when the cluster is one node and this machine is it:
// the local cluster).
func notThisMachine(t *testing.T) string {
	t.Helper()
	nodes := &corev1.NodeList{}
	if err := k8s.List(context.Background(), nodes); err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 1 {
		return fmt.Sprintf("the cluster has %d nodes", len(nodes.Items))
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var mine []string
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok {
			mine = append(mine, ipn.IP.String())
		}
	}
	if !slices.ContainsFunc(nodes.Items[0].Status.Addresses, func(a corev1.NodeAddress) bool {
		return a.Type == corev1.NodeInternalIP && slices.Contains(mine, a.Address)
	}) {
		return fmt.Sprintf("node %s is not this machine", nodes.Items[0].Name)
	}
	return ""
}

// stressBeside starts n busy loops on this machine (notThisMachine must have
// said it is the cluster's node): CPU stress beside the workers, which Chaos
// Mesh's StressChaos does on any cluster with its chaos-daemon, which the local
// cluster does not run. Each loop is a shell in its own session: the scheduler's
// autogroups weigh a session as one task, so loops sharing the test's session
// would stress like one. The kernel kills them if the test process dies
// (Pdeathsig); stop ends them by PID, as the test's cleanup does, and may be
// called again.
func stressBeside(t *testing.T, n int) (stop func()) {
	t.Helper()
	var procs []*exec.Cmd
	stop = func() {
		for _, p := range procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
		procs = nil
	}
	t.Cleanup(stop)
	for range n {
		p := exec.Command("sh", "-c", "while :; do :; done")
		p.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
		if err := p.Start(); err != nil {
			stop()
			t.Fatalf("stress: %v", err)
		}
		procs = append(procs, p)
	}
	t.Logf("CPU stress: %d busy loops beside the workers", n)
	return stop
}
