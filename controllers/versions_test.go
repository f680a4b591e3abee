package controllers_test

import (
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestPinnedVersionsAgree: the Kubernetes versions written outside
// hack/versions.env, where a file's own format needs them, follow it: the chart's
// kubeVersion floor is the oldest minor tested, and the reference docs link the
// current one's API.
func TestPinnedVersionsAgree(t *testing.T) {
	pinned := map[string]string{}
	data, err := os.ReadFile("../hack/versions.env")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok && !strings.HasPrefix(k, "#") {
			pinned[k] = v
		}
	}
	minor := func(key string) string {
		v := strings.SplitN(strings.TrimPrefix(pinned[key], "v"), ".", 3)
		if len(v) < 2 {
			t.Fatalf("hack/versions.env: %s=%q is no version", key, pinned[key])
		}
		return v[0] + "." + v[1]
	}
	var chart struct {
		KubeVersion string `json:"kubeVersion"`
	}
	raw, err := os.ReadFile(chartDir + "/Chart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &chart); err != nil {
		t.Fatal(err)
	}
	if want := ">=" + minor("K8S_OLDEST") + ".0-0"; chart.KubeVersion != want {
		t.Errorf("Chart.yaml kubeVersion %q, want %q (K8S_OLDEST)", chart.KubeVersion, want)
	}
	var refdocs struct {
		Render struct {
			KubernetesVersion string `json:"kubernetesVersion"`
		} `json:"render"`
	}
	raw, err = os.ReadFile("../hack/refdocs/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &refdocs); err != nil {
		t.Fatal(err)
	}
	if want := minor("K8S_CURRENT"); refdocs.Render.KubernetesVersion != want {
		t.Errorf("hack/refdocs/config.yaml kubernetesVersion %q, want %q (K8S_CURRENT)", refdocs.Render.KubernetesVersion, want)
	}
}
