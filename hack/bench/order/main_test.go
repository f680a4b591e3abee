package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestTableGroupsByAllButCodec: trials that differ only in codec (and in which is
// the reference) form one group, labelled with the settings that set groups apart.
func TestTableGroupsByAllButCodec(t *testing.T) {
	var r report.Report
	for _, client := range []trial.Client{"java", "franz-go"} {
		for k, codec := range []trial.Codec{"protobuf", "avro"} {
			config := string(client) + "-" + string(codec)
			for rep := int32(1); rep <= 3; rep++ {
				tr := trial.Trial{Name: fmt.Sprintf("%s-r%d", config, rep), Config: config, Repetition: rep, Codec: codec,
					Schema: "nested", SizeBytes: 100000, Reference: k == 0}
				tr.Settings.Client = client
				res := &summary.Result{SerializeMicrosPerRecord: float64((10 + int(rep) - 1) * (k + 1))}
				r.Trials = append(r.Trials, report.TrialResult{Trial: tr, Result: res})
			}
		}
	}
	tab, err := tableOf(r, "serializeNanosPerRecord")
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	for g := range tab {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	if len(groups) != 2 || !strings.Contains(groups[0], "client=franz-go") || !strings.Contains(groups[1], "client=java") {
		t.Fatalf("groups %q, want one per client", groups)
	}
	for _, g := range groups {
		rows := tab[g]
		if len(rows) != 2 || rows[0].codec != "avro" || rows[1].codec != "protobuf" ||
			!slices.Equal(rows[0].values, []float64{20000, 22000, 24000}) || !slices.Equal(rows[1].values, []float64{10000, 11000, 12000}) {
			t.Fatalf("group %s: %+v", g, rows)
		}
	}
	if _, err := tableOf(r, "recordsPerMinute"); err == nil || !strings.Contains(err.Error(), "no metric recordsPerMinute") {
		t.Fatalf("a metric that does not exist: %v", err)
	}
}

// TestSameShape: runs of other experiments (another group, another codec) are
// refused, since verdicts pair codecs by position.
func TestSameShape(t *testing.T) {
	a := table{"g": {{codec: "avro"}, {codec: "protobuf"}}}
	if err := sameShape([]table{a, {"g": {{codec: "avro"}, {codec: "protobuf"}}}}); err != nil {
		t.Fatalf("the same shape: %v", err)
	}
	for _, b := range []table{
		{"g": {{codec: "avro"}, {codec: "thrift"}}},
		{"h": {{codec: "avro"}, {codec: "protobuf"}}},
		{"g": {{codec: "avro"}, {codec: "protobuf"}}, "h": {{codec: "avro"}}},
	} {
		if err := sameShape([]table{a, b}); err == nil {
			t.Errorf("run 2 %v against %v: no error", b, a)
		}
	}
}
