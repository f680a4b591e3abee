package controllers

import (
	"reflect"
	"testing"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
)

// TestMergeBrokerCPU: the environment keeps every trial's broker pods and the
// coarsest resolution; a trial that found no pods does not undo pods read by
// another, and pods read replace an earlier "not read".
func TestMergeBrokerCPU(t *testing.T) {
	read := func(res int32, pods ...string) *serdebenchv1.BrokerCPU {
		return &serdebenchv1.BrokerCPU{Namespace: "kafka", Pods: pods, ResolutionSeconds: res}
	}
	none := &serdebenchv1.BrokerCPU{Namespace: "kafka", NotRead: "no pod in namespace kafka matches strimzi.io/cluster=c"}
	for _, c := range []struct {
		name      string
		have, got *serdebenchv1.BrokerCPU
		want      *serdebenchv1.BrokerCPU
	}{
		{"first", nil, none, none},
		{"nothing new", read(10, "b0"), nil, read(10, "b0")},
		{"pods and resolution merged", read(10, "b0"), read(15, "b1"), read(15, "b0", "b1")},
		{"none found after pods read", read(10, "b0"), none, read(10, "b0")},
		{"pods read after none found", none, read(10, "b0"), read(10, "b0")},
		{"none twice", none, none, none},
	} {
		if got := mergeBrokerCPU(c.have, c.got); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
