package controllers

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
)

// TestFreshness: a cached copy is current until the reconciler writes; then only
// the version it wrote (or last read from the API server) is; forgotten, any is.
func TestFreshness(t *testing.T) {
	var f freshness
	key := types.NamespacedName{Namespace: "ns", Name: "x"}
	if !f.current(key, "5") {
		t.Error("nothing written yet: the cache's copy should do")
	}
	f.remember(&serdebenchv1.SerializationExperiment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "x", ResourceVersion: "7"}})
	if f.current(key, "5") {
		t.Error("after writing version 7, a cached version 5 lags the write")
	}
	if !f.current(key, "7") {
		t.Error("the cache holds the version written")
	}
	if !f.current(types.NamespacedName{Namespace: "ns", Name: "other"}, "1") {
		t.Error("another experiment's write made this one stale")
	}
	f.forget(key)
	if !f.current(key, "5") {
		t.Error("forgotten: the cache's copy should do")
	}
}
