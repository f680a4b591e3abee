// Package kubetest holds what the operator's envtest suites (controllers) and the
// e2e suite (e2e) both need of a cluster in a test: bounded waits and kstatus.
package kubetest

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// WaitFor polls cond every interval until it holds, failing the test after timeout
// with the condition's last error (which should say what was seen instead).
func WaitFor(t testing.TB, timeout, interval time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), interval, timeout, true, func(context.Context) (bool, error) {
		ok, err := cond()
		last = err
		return ok, nil
	})
	if err != nil {
		t.Fatalf("timed out after %s waiting for %s (last error: %v)", timeout, what, last)
	}
}

// Kstatus reads obj afresh and computes its kstatus, as Argo CD and Flux do; gvk is
// the object's kind (typed objects carry none).
func Kstatus(t testing.TB, c client.Client, obj client.Object, gvk schema.GroupVersionKind) *status.Result {
	t.Helper()
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	res, err := status.Compute(u)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
