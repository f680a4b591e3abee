//go:build e2e

package e2e

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The README's install: its release, namespaces and Kafka cluster.
const (
	readmeRelease   = "serdebench"
	readmeNamespace = "kafka-bench"
	readmeStrimzi   = "kafka"
)

// readmeBlock is the first ```sh block under the README's heading, as written.
func readmeBlock(t *testing.T, heading string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(raw), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q", heading)
	}
	if next := strings.Index(after, "\n## "); next >= 0 {
		after = after[:next]
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatalf("README.md's %q has no sh block", heading)
	}
	block, _, _ = strings.Cut(block, "```")
	return block
}

// TestReadmeHelmFlow runs the README's install and its first experiment as a user
// would, block by block and as written, from the checkout: source images.env, helm
// install into kafka-bench with the kube-prometheus-stack values, apply the
// experiment (its Strimzi cluster my-cluster in namespace kafka), wait, get,
// describe, get the result. What the README assumes is there is: Strimzi's Topic
// Operator with Kafka my-cluster in namespace kafka, kube-prometheus-stack, the
// images loaded (make up). The README's CRDs are the suite release's: handed over
// for the install, as Helm adopts them, and back afterwards.
func TestReadmeHelmFlow(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	bin := t.TempDir()
	for name, target := range map[string]string{"kubectl": stack.kubectl, "helm": stack.helm} {
		if err := os.Symlink(target, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "KUBECONFIG="+stack.kubeconfig)
	sh := func(what, script string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
		cmd.Dir, cmd.Env, cmd.WaitDelay = repo, env, 10*time.Second
		out, err := cmd.CombinedOutput()
		t.Logf("%s:\n%s", what, out)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return string(out)
	}
	// adopt hands the CRDs to a release (bounded on its own: it also runs in cleanup).
	adopt := func(release, ns string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, crd := range []string{"serializationexperiments", "serializationresults", "serializationschedules"} {
			args := []string{"--kubeconfig", stack.kubeconfig, "annotate", "--overwrite", "crd", crd + ".serdebench.io",
				"meta.helm.sh/release-name=" + release, "meta.helm.sh/release-namespace=" + ns}
			if out, err := exec.CommandContext(ctx, stack.kubectl, args...).CombinedOutput(); err != nil {
				t.Errorf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	}

	// What the README assumes: Strimzi with Kafka my-cluster in namespace kafka.
	_, err := exec.CommandContext(ctx, stack.kubectl, "--kubeconfig", stack.kubeconfig, "get", "namespace", readmeStrimzi).CombinedOutput()
	hadStrimziNamespace := err == nil
	strimzi := exec.CommandContext(ctx, filepath.Join(repo, "hack/strimzi/deploy.sh"), "up", readmeStrimzi, stack.kafka, strimziCluster)
	strimzi.Env = env
	if out, err := strimzi.CombinedOutput(); err != nil {
		t.Fatalf("hack/strimzi/deploy.sh up %s: %v\n%s", readmeStrimzi, err, out)
	}
	adopt(readmeRelease, readmeNamespace)
	t.Cleanup(func() {
		// The experiment first (its topics), then the release; the CRDs stay (crds.keep).
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		run := func(name string, args ...string) {
			cmd := exec.CommandContext(ctx, name, args...)
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("cleanup: %s %s: %v\n%s", name, strings.Join(args, " "), err, out)
			}
		}
		run(stack.kubectl, "-n", readmeNamespace, "delete", "sx", "--all", "--wait=true", "--timeout=3m")
		run(stack.helm, "uninstall", readmeRelease, "-n", readmeNamespace, "--wait", "--timeout", "3m")
		// Prometheus drops the release's scrape job on its next reload: wait for it,
		// so that the reload does not restart the scrape pool under a later test's
		// trial. A job never loaded leaves no reload behind.
		job := "podMonitor/" + readmeNamespace + "/"
		for loaded := true; loaded; {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, stack.prometheus+"/api/v1/status/config", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("cleanup: Prometheus config: %v", err)
				break
			}
			body, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if loaded = err != nil || strings.Contains(string(body), job); !loaded {
				break
			}
			select {
			case <-ctx.Done():
				t.Errorf("cleanup: Prometheus still scrapes %s: %v", job, ctx.Err())
				loaded = false
			case <-time.After(5 * time.Second):
			}
		}
		run(stack.kubectl, "delete", "namespace", readmeNamespace, "--wait=true", "--timeout=3m")
		run(filepath.Join(repo, "hack/strimzi/deploy.sh"), "down", readmeStrimzi, strimziCluster)
		if !hadStrimziNamespace {
			run(stack.kubectl, "delete", "namespace", readmeStrimzi, "--wait=true", "--timeout=3m")
		}
		adopt(release, namespace)
	})

	sh("the README's install", readmeBlock(t, "## Install into your cluster"))
	out := sh("the README's experiment", readmeBlock(t, "## Run an experiment"))
	for _, want := range []string{
		"serializationexperiment.serdebench.io/first created",
		"Succeeded",                  // kubectl get sx and describe
		"Every trial: ",              // the table's shared settings
		"business-record 1176 B",     // the recommendation's one payload
		"Recommendation per payload", // get result
		"Trials:",                    // describe
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the README's experiment printed no %q", want)
		}
	}
}
