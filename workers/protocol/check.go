package protocol

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/serdebench/serdebench/api/trial"
)

// CheckCommand is the worker binary's first argument for a source check: the
// operator runs it in the worker image, which links every codec, before a trial
// uses a user's schema and samples (the operator itself links none).
const CheckCommand = "check-source"

// SourceCheck asks a worker to check a user's schema and samples through codecs.
type SourceCheck struct {
	// Source is the schema and samples, as files the worker reads.
	Source trial.Source
	// Codecs the samples must round-trip through.
	Codecs []trial.Codec
	// TerminationLog receives the outcome: which codecs passed with their mean
	// encoded sizes, or the first error naming the samples line.
	TerminationLog string
}

// Args renders c as the worker binary's arguments, the inverse of ParseCheck.
func (c SourceCheck) Args() []string {
	codecs := make([]string, len(c.Codecs))
	for i, k := range c.Codecs {
		codecs[i] = string(k)
	}
	args := []string{CheckCommand, "--format=" + c.Source.Format, "--schema=" + c.Source.SchemaFile,
		"--samples=" + c.Source.SamplesFile, "--codecs=" + strings.Join(codecs, ",")}
	if c.Source.Message != "" {
		args = append(args, "--message="+c.Source.Message)
	}
	if c.TerminationLog != "" {
		args = append(args, "--termination-log="+c.TerminationLog)
	}
	return args
}

// ParseCheck reads a source check's arguments (after CheckCommand).
func ParseCheck(args []string, stderr io.Writer) (SourceCheck, error) {
	var c SourceCheck
	var codecs string
	fs := flag.NewFlagSet(CheckCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.Source.Format, "format", "", "schema format: avro, protobuf or json-schema")
	fs.StringVar(&c.Source.Message, "message", "", "protobuf message of each sample")
	fs.StringVar(&c.Source.SchemaFile, "schema", "", "schema file")
	fs.StringVar(&c.Source.SamplesFile, "samples", "", "samples file (JSON lines)")
	fs.StringVar(&codecs, "codecs", "", "comma-separated codecs the samples must round-trip through")
	fs.StringVar(&c.TerminationLog, "termination-log", "", "file that receives the outcome")
	if err := fs.Parse(args); err != nil {
		return SourceCheck{}, err
	}
	if fs.NArg() > 0 {
		return SourceCheck{}, fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	for _, k := range strings.Split(codecs, ",") {
		if k != "" {
			c.Codecs = append(c.Codecs, trial.Codec(k))
		}
	}
	switch {
	case c.Source.Format == "" || c.Source.SchemaFile == "" || c.Source.SamplesFile == "":
		return SourceCheck{}, errors.New("--format, --schema and --samples are required")
	case len(c.Codecs) == 0:
		return SourceCheck{}, errors.New("--codecs names no codec")
	}
	return c, nil
}
