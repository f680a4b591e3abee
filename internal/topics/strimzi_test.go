package topics

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func mapperServing(versions ...string) meta.RESTMapper {
	var gvs []schema.GroupVersion
	for _, v := range versions {
		gvs = append(gvs, schema.GroupVersion{Group: StrimziGroup, Version: v})
	}
	m := meta.NewDefaultRESTMapper(gvs)
	for _, gv := range gvs {
		m.Add(gv.WithKind(KindKafkaTopic), meta.RESTScopeNamespace)
	}
	return m
}

// TestServedStrimziGVK: v1 (Strimzi 1.x) is preferred when served, v1beta2 (0.x)
// otherwise, and a cluster serving neither is an error naming what it serves.
func TestServedStrimziGVK(t *testing.T) {
	for _, c := range []struct {
		served []string
		want   string
	}{
		{[]string{"v1"}, "v1"},
		{[]string{"v1beta2"}, "v1beta2"},
		{[]string{"v1beta2", "v1"}, "v1"},
		{[]string{"v1beta1", "v1beta2"}, "v1beta2"},
	} {
		gvk, err := ServedStrimziGVK(mapperServing(c.served...), KindKafkaTopic)
		if err != nil || gvk.Version != c.want {
			t.Errorf("served %v: got %v, %v; want %s", c.served, gvk, err, c.want)
		}
	}
	_, err := ServedStrimziGVK(mapperServing("v1beta1"), KindKafkaTopic)
	if err == nil || !strings.Contains(err.Error(), "v1beta1") || !strings.Contains(err.Error(), "[v1 v1beta2]") {
		t.Errorf("unsupported version: %v", err)
	}
}
