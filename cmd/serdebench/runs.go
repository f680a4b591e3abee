package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/htmlreport"
	"github.com/serdebench/serdebench/internal/recommend"
	"github.com/serdebench/serdebench/internal/report"
)

// readRun reads one run from a file: a `serdebench run -o json` report, or a
// SerializationResult (YAML or JSON, as `kubectl get -o yaml` writes it). Its
// errors are usage errors: the file is what is wrong.
func readRun(path string) (htmlreport.Run, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return htmlreport.Run{}, usagef("read results: %w", err)
	}
	return parseRun(raw, path)
}

// parseRun is readRun's reading of raw, the content of the file named path.
func parseRun(raw []byte, path string) (htmlreport.Run, error) {
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return htmlreport.Run{}, usagef("%s: %w", path, err)
	}
	var kind struct {
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(js, &kind)
	if kind.Kind == "SerializationResult" {
		var res v1alpha1.SerializationResult
		if err := json.Unmarshal(js, &res); err != nil {
			return htmlreport.Run{}, usagef("%s: %w", path, err)
		}
		return htmlreport.FromResult(&res), nil
	}
	var rep struct {
		Trials []json.RawMessage `json:"trials"`
	}
	if err := json.Unmarshal(js, &rep); err != nil || len(rep.Trials) == 0 {
		return htmlreport.Run{}, usagef("%s: neither a serdebench run -o json report nor a SerializationResult", path)
	}
	var r report.Report
	if err := json.Unmarshal(js, &r); err != nil {
		return htmlreport.Run{}, usagef("%s: %w", path, err)
	}
	var spec struct {
		Spec v1alpha1.ExperimentSpec `json:"spec"`
	}
	if err := json.Unmarshal(js, &spec); err != nil {
		return htmlreport.Run{}, usagef("%s: spec: %w", path, err)
	}
	run := htmlreport.FromLocal(r)
	run.Objective, run.TrialSeconds = spec.Spec.Objective, recommend.TrialSeconds(spec.Spec)
	return run, nil
}

// readRows reads the trial rows of a run file.
func readRows(path string) ([]report.Row, error) {
	run, err := readRun(path)
	return run.Rows, err
}

// loadRun reads one run: a file, else a SerializationResult in the cluster.
func loadRun(ctx context.Context, f *clusterFlags, arg string) (htmlreport.Run, error) {
	if _, err := os.Stat(arg); err == nil {
		return readRun(arg)
	}
	cl, ns, err := f.client()
	if err != nil {
		return htmlreport.Run{}, fmt.Errorf("%s: not a file, and no cluster to look it up in: %w", arg, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res := &v1alpha1.SerializationResult{}
	if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: arg}, res); err != nil {
		return htmlreport.Run{}, fmt.Errorf("%s: not a file; get serializationresult %s/%s: %w", arg, ns, arg, err)
	}
	return htmlreport.FromResult(res), nil
}
