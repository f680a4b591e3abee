package microbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
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
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], "microbench", "--trial", string(tj),
		"--benchtime-ms", strconv.FormatInt(max(benchTime.Milliseconds(), 1), 10))...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = runner.ProcessStopGrace
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return Result{}, fmt.Errorf("%s microbench: %w: %s", rt, err, lastLines(stderr.String(), 5))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var r Result
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		return Result{}, fmt.Errorf("%s microbench printed %q: %w", rt, lines[len(lines)-1], err)
	}
	if r.Records == 0 || r.Marshal.Ops == 0 || r.Unmarshal.Ops == 0 {
		return Result{}, fmt.Errorf("%s microbench printed %q, want its result", rt, lines[len(lines)-1])
	}
	r.Codec, r.Schema, r.SizeBytes, r.PayloadCompression = string(t.Codec), t.PayloadSchema(), t.SizeBytes, compress.None
	return r, nil
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}
