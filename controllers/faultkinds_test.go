package controllers_test

import (
	"context"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/controllers/build"
)

// TestFaultKindsServedAndAllowed: for every kind of the fault-kind table
// (trial.FaultKinds) envtest serves its Chaos Mesh CRD (hack/crds/fetch.sh), at
// the resource the row names, and the RBAC the project ships lets the operator do
// all it does with it.
func TestFaultKindsServedAndAllowed(t *testing.T) {
	for _, k := range trial.ChaosKindNames() {
		gvk := build.ChaosKind(k)
		m, err := k8s.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Errorf("%s: envtest does not serve %s: %v", k, gvk, err)
			continue
		}
		if m.Resource.Resource != trial.FaultKinds[k].Resource {
			t.Errorf("%s: %s is served as %q, the table says %q", k, gvk.Kind, m.Resource.Resource, trial.FaultKinds[k].Resource)
		}
		for _, verb := range []string{"get", "list", "watch", "create", "patch", "update", "delete", "deletecollection"} {
			sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User:   managerCfg.Impersonate.UserName,
				Groups: managerCfg.Impersonate.Groups,
				ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "any", Verb: verb,
					Group: gvk.Group, Version: gvk.Version, Resource: m.Resource.Resource},
			}}
			if err := k8s.Create(context.Background(), sar); err != nil {
				t.Fatal(err)
			}
			if !sar.Status.Allowed {
				t.Errorf("%s: the shipped RBAC does not let the operator %s %s (%s)", k, verb, m.Resource.Resource, sar.Status.Reason)
			}
		}
	}
}
