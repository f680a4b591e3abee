package controllers

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
)

// TestFreshness: a cached copy is current only at the version the operator last
// wrote or read uncached; an uncached read that a write overtook does not replace
// the write's version; forgotten (or never seen), nothing cached is current.
func TestFreshness(t *testing.T) {
	var f freshness
	key := types.NamespacedName{Namespace: "ns", Name: "x"}
	at := func(rv string) *serdebenchv1.SerializationExperiment {
		return &serdebenchv1.SerializationExperiment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "x", ResourceVersion: rv}}
	}
	if f.current(key, "5") {
		t.Error("never read uncached: a cached copy may predate a previous process's write")
	}
	before, had := f.version(key)
	f.observed(key, before, had, "5")
	if !f.current(key, "5") {
		t.Error("the version read uncached is current")
	}
	f.remember(at("7"))
	if f.current(key, "5") || !f.current(key, "7") {
		t.Error("after writing version 7, only 7 is current")
	}
	// A read that began before the write (it saw 5) and returned after it.
	f.observed(key, "5", true, "6")
	if !f.current(key, "7") {
		t.Error("an uncached read overtaken by a write replaced the write's version")
	}
	if f.current(types.NamespacedName{Namespace: "ns", Name: "other"}, "7") {
		t.Error("another experiment is current without being read")
	}
	f.forget(key)
	if f.current(key, "7") {
		t.Error("forgotten: nothing cached is current")
	}
}
