package promquery

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

// TestContainerCPU: each container's counter is interpolated at the window's
// bounds and summed over containers; a second copy of a series (two scrape jobs)
// counts once; a restarted container, a pod without series, and a series not yet
// past the window are errors that say so.
func TestContainerCPU(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	series := func(pod, id, job string, points ...[2]float64) *model.SampleStream {
		s := &model.SampleStream{Metric: model.Metric{"pod": model.LabelValue(pod), "container": "kafka", "id": model.LabelValue(id), "job": model.LabelValue(job)}}
		for _, p := range points {
			s.Values = append(s.Values, model.SamplePair{Timestamp: model.TimeFromUnixNano(at(int(p[0])).UnixNano()), Value: model.SampleValue(p[1])})
		}
		return s
	}
	// kafka-0 burns 1 CPU-s/s, kafka-1 0.5; samples 10 and 20 s apart.
	k0 := series("kafka-0", "/a", "kubelet", [2]float64{0, 100}, [2]float64{10, 110}, [2]float64{20, 120}, [2]float64{30, 130})
	k1 := series("kafka-1", "/b", "kubelet", [2]float64{0, 50}, [2]float64{20, 60}, [2]float64{40, 70})
	k0copy := series("kafka-0", "/a", "other", [2]float64{10, 110}, [2]float64{20, 120})
	pods := []string{"kafka-0", "kafka-1"}

	cpu, res, err := containerCPU(model.Matrix{k0, k1, k0copy}, "kafka", pods, at(5), at(25))
	// kafka-0: 125 − 105 = 20; kafka-1: 62.5 − 52.5 = 10.
	if err != nil || math.Abs(cpu-30) > 1e-9 || res != 20*time.Second {
		t.Fatalf("cpu %v, resolution %s, err %v: want 30 s and 20 s", cpu, res, err)
	}

	restarted := series("kafka-1", "/c", "kubelet", [2]float64{25, 1}, [2]float64{35, 6})
	if _, _, err := containerCPU(model.Matrix{k0, k1, restarted}, "kafka", pods, at(5), at(25)); err == nil || !strings.Contains(err.Error(), "restarted") {
		t.Errorf("a container restarted in the window: %v", err)
	}
	// A kill in the window: the old life's last sample fell before the window's
	// start (samples are far apart), the new one began in it.
	killedOld := series("kafka-1", "/b", "kubelet", [2]float64{-20, 40}, [2]float64{0, 50})
	killedNew := series("kafka-1", "/d", "kubelet", [2]float64{15, 1}, [2]float64{35, 6})
	if _, _, err := containerCPU(model.Matrix{k0, killedOld, killedNew}, "kafka", pods, at(5), at(25)); err == nil || !strings.Contains(err.Error(), "restarted") {
		t.Errorf("a kill in the window, last sample before it: %v", err)
	}
	// A kill whose replacement was first sampled after the window: the old life
	// stopped before the window's end.
	lateNew := series("kafka-1", "/e", "kubelet", [2]float64{30, 1}, [2]float64{50, 6})
	oldStopped := series("kafka-1", "/b", "kubelet", [2]float64{0, 50}, [2]float64{20, 60})
	if _, _, err := containerCPU(model.Matrix{k0, oldStopped, lateNew}, "kafka", pods, at(5), at(25)); err == nil || !strings.Contains(err.Error(), "restarted") {
		t.Errorf("a kill whose replacement was sampled after the window: %v", err)
	}
	// A life that ended before the window (a restart before it) or began after it
	// is not the window's: the one life through it counts.
	earlier := series("kafka-1", "/old", "kubelet", [2]float64{-60, 500}, [2]float64{-40, 510})
	later := series("kafka-1", "/new", "kubelet", [2]float64{41, 1}, [2]float64{50, 2})
	if cpu, _, err := containerCPU(model.Matrix{k0, k1, earlier, later}, "kafka", pods, at(5), at(25)); err != nil || math.Abs(cpu-30) > 1e-9 {
		t.Errorf("lives before and after the window: cpu %v, err %v; want 30 s from the one through it", cpu, err)
	}
	if _, _, err := containerCPU(model.Matrix{k0}, "kafka", pods, at(5), at(25)); err == nil || !strings.Contains(err.Error(), "no cAdvisor series for pod kafka/kafka-1") {
		t.Errorf("a pod without series: %v", err)
	}
	if _, _, err := containerCPU(model.Matrix{k0, k1}, "kafka", pods, at(5), at(35)); !errors.Is(err, ErrNotYet) {
		t.Errorf("a window past kafka-0's last sample: %v, want ErrNotYet", err)
	}
	if _, _, err := containerCPU(model.Matrix{k0, k1}, "kafka", pods, at(-5), at(25)); err == nil || errors.Is(err, ErrNotYet) || !strings.Contains(err.Error(), "before the window's start") {
		t.Errorf("a window before the first sample: %v", err)
	}
	reset := series("kafka-0", "/a", "kubelet", [2]float64{0, 100}, [2]float64{10, 3}, [2]float64{30, 130})
	if _, _, err := containerCPU(model.Matrix{reset, k1}, "kafka", pods, at(5), at(25)); err == nil || !strings.Contains(err.Error(), "reset") {
		t.Errorf("a counter that went back: %v", err)
	}
}
