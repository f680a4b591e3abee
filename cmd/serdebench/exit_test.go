package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/workers/protocol"
)

// TestExitCodes: each way a command ends maps to its own code, whichever command
// it is (compare's regressed and not-judged codes: TestCompareFiles; SIGTERM of
// a run: TestRunStopsOnSIGTERM's process).
func TestExitCodes(t *testing.T) {
	t.Setenv("SERDEBENCH_FAULT_INTERFACE", "")
	t.Setenv("SERDEBENCH_FAULT_BROKER_SCRIPT", "")
	noCluster := filepath.Join(t.TempDir(), "no-kubeconfig")
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"validate", "-f", "../../config/samples/thesis-batch.yaml"}, exitOK},
		{[]string{"version"}, exitOK},
		{[]string{"no-such-command"}, exitUsage},
		{[]string{"get", "no-such-kind"}, exitUsage},
		{[]string{"get"}, exitOK},
		{[]string{"run"}, exitUsage},
		{[]string{"run", "-f", "testdata/bad-acks.yaml"}, exitUsage},
		{[]string{"run", "-f", "testdata/missing.yaml"}, exitUsage},
		{[]string{"run", "-f", "testdata/faults.yaml"}, exitUsage},
		{[]string{"run", "-f", "../../config/samples/thesis-batch.yaml", "-o", "xml"}, exitUsage},
		{[]string{"run", "-f", "../../config/samples/thesis-batch.yaml", "--no-such-flag"}, exitUsage},
		{[]string{"validate", "-f", "testdata/typo.yaml"}, exitUsage},
		{[]string{"microbench", "-f", "../../config/samples/thesis-batch.yaml", "--runs", "0"}, exitUsage},
		{[]string{"compare", "only-one.json"}, exitUsage},
		{[]string{"report", "-o", filepath.Join(t.TempDir(), "r.html")}, exitUsage},
		{[]string{"version", "extra"}, exitUsage},
		{[]string{"validate", "-f", "../../config/samples/thesis-batch.yaml", "stray"}, exitUsage},
		{[]string{"wait", "a", "-o", "xml"}, exitUsage},
		{[]string{"version", "-o", "xml"}, exitUsage},
		{[]string{"get", "result", "a", "-o", "xml"}, exitUsage},
		{[]string{"get", "result", "a", "--kubeconfig", noCluster}, exitError},
		{[]string{"wait", "a", "--kubeconfig", noCluster}, exitError},
		{[]string{"recommend", "no-such-result", "--kubeconfig", noCluster}, exitError},
	} {
		out, err := execute(c.args...)
		if got := exitCode(err); got != c.want {
			t.Errorf("serdebench %s: exit %d, want %d\n%s", strings.Join(c.args, " "), got, c.want, out)
		}
	}
	// A near miss is suggested, as cobra does.
	if _, err := execute("valdate"); exitCode(err) != exitUsage || !strings.Contains(err.Error(), "Did you mean this?\n\tvalidate") {
		t.Errorf("serdebench valdate: %v", err)
	}
}

// TestExitCodeOf: wrapped errors keep their code; a worker's interruption is the
// command's.
func TestExitCodeOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{errors.New("broker down"), exitError},
		{fmt.Errorf("trial 3: %w", usagef("--output: %q", "xml")), exitUsage},
		{fmt.Errorf("run: %w", &runner.TrialError{Reason: protocol.ReasonWorkerInterrupted}), exitInterrupted},
		{withCode(exitInterrupted, context.DeadlineExceeded), exitInterrupted},
		{withCode(exitRegressed, errors.New("x")), exitRegressed},
		{usage(nil), exitOK},
	} {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("%v: exit %d, want %d", c.err, got, c.want)
		}
	}
}

// TestExitCodesDistinct: one meaning per code, every code documented in the
// root command's help (and so in docs/cli).
func TestExitCodesDistinct(t *testing.T) {
	seen := map[int]bool{}
	help := rootCmd().Long
	for _, c := range exitCodes {
		if seen[c.code] {
			t.Errorf("exit code %d has two meanings", c.code)
		}
		seen[c.code] = true
		if !strings.Contains(help, fmt.Sprintf("  %d  %s", c.code, c.meaning)) {
			t.Errorf("exit code %d is not in the root help:\n%s", c.code, help)
		}
	}
}

// TestEveryCommandDocumented: every command of serdebench's own has examples, and
// every one that runs something lists its exit codes.
func TestEveryCommandDocumented(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			if sub.Example == "" {
				t.Errorf("%s has no examples", sub.CommandPath())
			}
			if !sub.HasSubCommands() && !strings.Contains(sub.Long, "Exit codes:\n") {
				t.Errorf("%s does not list its exit codes", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(rootCmd())
}
