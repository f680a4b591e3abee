package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/workers/protocol"
)

// The command's exit codes: one meaning each, whichever command exits. The
// first four are the worker contract's (workers/protocol), so a script reads a
// worker and the CLI alike.
const (
	exitOK          = protocol.ExitOK
	exitError       = protocol.ExitFailed
	exitUsage       = protocol.ExitUsage
	exitInterrupted = protocol.ExitInterrupted
	exitRegressed   = 4
	exitNotJudged   = 5
	// exitEnvironmentShifted: the trials moved with the control or the machine; a gate must not
	// read it as a pass.
	exitEnvironmentShifted = 6
)

// exitCodes is the table docs/cli and every command's help print.
var exitCodes = []struct {
	code    int
	meaning string
}{
	{exitOK, "success: the command did what it was asked (a compare found no regression)"},
	{exitError, "runtime error: a broker, cluster or trial failed, or an experiment the command followed failed; the message says which"},
	{exitUsage, "usage error: a flag, an argument or an input file is invalid; nothing ran"},
	{exitInterrupted, fmt.Sprintf("interrupted: SIGTERM, Ctrl-C or a time limit (--trial-timeout, --timeout) cut the command short, which ends within %s; what ran is not a result", stopDeadline)},
	{exitRegressed, "regression found: compare judged a trial Regressed against its baseline"},
	{exitNotJudged, "nothing judged: compare had too few earlier runs, or no trial of the candidate matched one of theirs"},
	{exitEnvironmentShifted, "environment shifted: compare found the trials moved with the control trial beyond their thresholds, or beside a machine probe shown slower (the machine, cluster or a shared dependency changed, not one trial): neither a pass nor a regression of a trial"},
}

// exitHelp is the exit-code section of a command's help: the codes it can end
// with, from exitCodes.
func exitHelp(codes ...int) string {
	var b strings.Builder
	b.WriteString("Exit codes:\n")
	for _, c := range exitCodes {
		for _, want := range codes {
			if c.code == want {
				fmt.Fprintf(&b, "  %d  %s\n", c.code, c.meaning)
			}
		}
	}
	return b.String()
}

// outputOneOf is a usage error unless output is one of formats ("" for the
// default when it has no name).
func outputOneOf(output string, formats ...string) error {
	if slices.Contains(formats, output) {
		return nil
	}
	named := slices.DeleteFunc(slices.Clone(formats), func(f string) bool { return f == "" })
	want := named[len(named)-1]
	if len(named) > 1 {
		want = strings.Join(named[:len(named)-1], ", ") + " or " + want
	}
	return usagef("--output: must be %s, got %q", want, output)
}

// exitErr carries the code an error ends the command with.
type exitErr struct {
	code int
	err  error
}

func (e *exitErr) Error() string { return e.err.Error() }
func (e *exitErr) Unwrap() error { return e.err }

// withCode marks err to end the command with code (nil stays nil).
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitErr{code, err}
}

// usage marks err as a usage error: the command line or an input was invalid.
func usage(err error) error { return withCode(exitUsage, err) }

// usagef is usage(fmt.Errorf(format, a...)).
func usagef(format string, a ...any) error { return usage(fmt.Errorf(format, a...)) }

// positional makes a cobra argument check's error a usage error.
func positional(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error { return usage(check(cmd, args)) }
}

// group makes a command of subcommands runnable, so that an unknown subcommand
// is a usage error (cobra's own is a plain one, or help and success); alone, it
// prints its help.
func group(c *cobra.Command) {
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = 2 // cobra's own default, which it sets only on its path
		}
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		return usage(errors.New(msg))
	}
	c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
}

// required makes the named flags of c required, their absence a usage error
// (cobra's own check, MarkFlagRequired, returns a plain error).
func required(c *cobra.Command, names ...string) {
	c.PreRunE = func(cmd *cobra.Command, _ []string) error {
		for _, n := range names {
			if !cmd.Flags().Changed(n) {
				return usagef("required flag --%s not set", n)
			}
		}
		return nil
	}
}

// allExitCodes lists every code the command can end with.
func allExitCodes() []int {
	codes := make([]int, len(exitCodes))
	for i, c := range exitCodes {
		codes[i] = c.code
	}
	return codes
}

// exitCode is the code err ends the command with.
func exitCode(err error) int {
	var e *exitErr
	var te *runner.TrialError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &e):
		return e.code
	case errors.As(err, &te) && te.Reason == protocol.ReasonWorkerInterrupted:
		return exitInterrupted
	}
	return exitError
}
