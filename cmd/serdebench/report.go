package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/serdebench/serdebench/internal/htmlreport"
)

func reportCmd() *cobra.Command {
	var f clusterFlags
	var out string
	c := &cobra.Command{
		Use:   "report RUN... [-o report.html]",
		Short: "Write one self-contained HTML report (charts, table, environment) of one run, or compare several",
		Long: "Each RUN is a `serdebench run -o json` report, a SerializationResult file (YAML or JSON), or the name of a " +
			"SerializationResult in the cluster (--kubeconfig, -n). With several runs, the charts show them side by side " +
			"and the last is compared with the ones before it, as `serdebench compare` does. The file carries its charting " +
			"library inline and opens offline.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			runs := make([]htmlreport.Run, 0, len(args))
			for _, a := range args {
				run, err := loadRun(cmd.Context(), &f, a)
				if err != nil {
					return err
				}
				runs = append(runs, run)
			}
			var buf bytes.Buffer
			if err := htmlreport.Write(&buf, runs, time.Now()); err != nil {
				return err
			}
			if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
				return fmt.Errorf("write report: %w", err)
			}
			abs, err := filepath.Abs(out)
			if err != nil {
				abs = out
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s (%d KiB)\n", abs, (buf.Len()+1023)/1024)
			return nil
		},
	}
	f.bind(c)
	c.Flags().StringVarP(&out, "output", "o", "serdebench-report.html", "the HTML file to write")
	return c
}
