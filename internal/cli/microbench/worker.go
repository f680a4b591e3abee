package microbench

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/workers/compress"
)

// measureWorker measures t's codec in runtime rt's worker: `<launcher> microbench
// --trial <JSON> --benchtime-ms N` prints the encoded size and Marshal's and
// Unmarshal's costs as one JSON line (workers/jvm's Microbench; docs/worker-contract.md).
// Its Unmarshal decodes that runtime's own encoding of the records.
func measureWorker(ctx context.Context, t trial.Trial, rt trial.Runtime, benchTime time.Duration, workers map[trial.Runtime][]string) (Result, error) {
	argv, err := runner.Launcher(workers, rt)
	if err != nil {
		return Result{}, err
	}
	tj, err := json.Marshal(t)
	if err != nil {
		return Result{}, fmt.Errorf("trial as JSON: %w", err)
	}
	out, err := runner.RunTool(ctx, argv, "microbench", "--trial", string(tj), "--benchtime-ms", strconv.FormatInt(max(benchTime.Milliseconds(), 1), 10))
	if err != nil {
		return Result{}, fmt.Errorf("%s worker: %w", rt, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := lines[len(lines)-1]
	var r Result
	if err := json.Unmarshal([]byte(last), &r); err != nil {
		return Result{}, fmt.Errorf("%s microbench printed %q: %w", rt, last, err)
	}
	if r.Records == 0 || r.Marshal.Ops == 0 || r.Unmarshal.Ops == 0 {
		return Result{}, fmt.Errorf("%s microbench printed %q, want its result", rt, last)
	}
	r.Codec, r.Schema, r.SizeBytes, r.PayloadCompression = string(t.Codec), t.PayloadSchema(), t.SizeBytes, compress.None
	return r, nil
}
