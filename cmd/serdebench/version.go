package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/serdebench/serdebench/internal/version"
)

func versionCmd() *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "version",
		Short: "Print serdebench's version, commit, Go version and platform",
		Long:  "Prints serdebench's version, commit, Go version and platform.\n\n" + exitHelp(exitOK, exitUsage),
		Example: `  serdebench version
  serdebench version -o json
  serdebench --version`,
		Args: positional(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			b := version.Get()
			switch output {
			case "", "text":
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "serdebench %s\n", b)
				return err
			case "json":
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(b)
			}
			return usagef("--output: must be text or json, got %q", output)
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	return c
}
