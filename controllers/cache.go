package controllers

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/controllers/build"
)

// CacheOptions restrict the manager's informers to the watched namespaces (all when
// none are given) and to what the operator created: Pods
// and Jobs labelled app.kubernetes.io/managed-by=serdebench. On a real cluster an
// unrestricted Pod informer would hold every pod in memory. Secrets are never
// cached: the reconciler reads them through the API reader, so no Secret informer
// starts (its RBAC grants get only).
func CacheOptions(namespaces ...string) cache.Options {
	managed := labels.SelectorFromSet(labels.Set{build.LabelManagedBy: build.ManagedBy})
	o := cache.Options{ByObject: map[client.Object]cache.ByObject{
		&corev1.Pod{}:  {Label: managed},
		&batchv1.Job{}: {Label: managed},
	},
		// managedFields are a large part of every cached object and the operator
		// never reads them (updates without them keep the server's).
		DefaultTransform: cache.TransformStripManagedFields(),
	}
	if len(namespaces) > 0 {
		// Namespaced RBAC grants list/watch only here: a cluster-wide informer would
		// never sync.
		o.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			o.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return o
}
