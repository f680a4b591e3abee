package build

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/names"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/workers/summary"
)

// Histograms is the ConfigMap, empty, in which a repeated experiment's
// repetitions merge their latency histograms, per trial: <config>.e2e and
// <config>.ack (HdrHistogram's base64 encodings at summary.StoredDigits, within
// 1 %), and <config>.runs, the repetitions merged in, one per line. Its owner is
// the experiment, so it goes with it. At a result's cap (64 repeated trials) it
// holds about 64 × 2 × 2 KiB; MergeHistograms stops below a ConfigMap's 1 MiB
// (HistogramsMaxBytes). The result itself keeps only the percentiles.
func Histograms(x *serdebenchv1.SerializationExperiment) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: HistogramsName(x), Namespace: x.Namespace,
			Labels: map[string]string{LabelExperiment: names.Truncate(x.Name, 63), LabelManagedBy: ManagedBy}},
	}
}

// MergeHistograms adds repetition t's merged end-to-end and acknowledgement
// histograms to cm's for its trial, once: a repetition cm lists already is left
// out, so a collect that is retried never counts it twice. It reports whether
// cm changed.
func MergeHistograms(cm *corev1.ConfigMap, t trial.Trial, e2e, ack *summary.Histogram) (bool, error) {
	runs := runsIn(cm, t.Config)
	if slices.Contains(runs, t.Name) || e2e == nil {
		return false, nil
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	for key, h := range map[string]*summary.Histogram{t.Config + ".e2e": e2e, t.Config + ".ack": ack} {
		stored := summary.NewStoredLatency()
		if b := cm.Data[key]; len(b) > 0 {
			var err error
			if stored, err = summary.DecodeHistogram([]byte(b)); err != nil {
				return false, fmt.Errorf("%s in %s: %w", key, cm.Name, err)
			}
		}
		stored.Merge(h)
		b, err := stored.Encode()
		if err != nil {
			return false, err
		}
		cm.Data[key] = string(b)
	}
	cm.Data[t.Config+".runs"] = strings.Join(append(runs, t.Name), "\n")
	if n := dataBytes(cm); n > HistogramsMaxBytes {
		return false, fmt.Errorf("%s would hold %d B, above %d: its merged percentiles are left out", cm.Name, n, HistogramsMaxBytes)
	}
	return true, nil
}

// HistogramsMaxBytes is the most the histograms ConfigMap may hold: below the
// API's 1 MiB for a ConfigMap, with room for its metadata.
const HistogramsMaxBytes = 900 << 10

func dataBytes(cm *corev1.ConfigMap) int {
	n := 0
	for k, v := range cm.Data {
		n += len(k) + len(v)
	}
	return n
}

// OwnsHistograms says cm is x's histograms ConfigMap: made by serdebench for
// this very experiment (a re-created experiment of the same name finds its
// predecessor's until the garbage collector removes it).
func OwnsHistograms(x *serdebenchv1.SerializationExperiment, cm *corev1.ConfigMap) bool {
	ref := metav1.GetControllerOf(cm)
	return ref != nil && ref.UID == x.UID && cm.Labels[LabelManagedBy] == ManagedBy
}

// MergedFrom are the merged percentiles of config's repetitions in cm (nil when
// it holds none).
func MergedFrom(cm *corev1.ConfigMap, config string) (*serdebenchv1.MergedLatency, error) {
	runs := runsIn(cm, config)
	if cm == nil || len(runs) == 0 {
		return nil, nil
	}
	m := &serdebenchv1.MergedLatency{Runs: int32(len(runs)), ResolutionPermille: 10}
	for key, into := range map[string]*serdebenchv1.LatencyMicros{config + ".e2e": &m.EndToEndMicros, config + ".ack": &m.AckMicros} {
		h, err := summary.DecodeHistogram([]byte(cm.Data[key]))
		if err != nil {
			return nil, fmt.Errorf("%s in %s: %w", key, cm.Name, err)
		}
		*into = report.LatencyMicros(h.Percentiles())
	}
	return m, nil
}

// runsIn are the repetitions of config merged in cm.
func runsIn(cm *corev1.ConfigMap, config string) []string {
	if cm == nil || cm.Data[config+".runs"] == "" {
		return nil
	}
	return strings.Split(cm.Data[config+".runs"], "\n")
}
