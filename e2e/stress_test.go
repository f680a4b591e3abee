//go:build e2e

package e2e

import (
	"context"
	"net"
	"os/exec"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// stressBeside starts n busy loops (each a shell process) on this machine, which
// must be the cluster's one node (the local cluster): CPU stress beside the
// workers. Chaos Mesh's StressChaos does this on any cluster, but needs its
// chaos-daemon, which the local cluster does not run. The returned stop ends
// them (by PID, as the test's cleanup also does); it may be called again.
func stressBeside(t *testing.T, n int) (stop func()) {
	t.Helper()
	nodes := &corev1.NodeList{}
	if err := k8s.List(context.Background(), nodes); err != nil {
		t.Fatal(err)
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
	local := len(nodes.Items) == 1 && slices.ContainsFunc(nodes.Items[0].Status.Addresses, func(a corev1.NodeAddress) bool {
		return a.Type == corev1.NodeInternalIP && slices.Contains(mine, a.Address)
	})
	if !local {
		t.Fatalf("CPU stress beside the workers runs on this machine: the cluster must be its one node (the local cluster); nodes: %d", len(nodes.Items))
	}
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
		if err := p.Start(); err != nil {
			stop()
			t.Fatalf("stress: %v", err)
		}
		procs = append(procs, p)
	}
	t.Logf("CPU stress: %d busy loops beside the workers", n)
	return stop
}
