package run

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/source"
)

// Check reads a user's schema and samples and round-trips every sample through
// every codec of c. It returns what passed, e.g. "json 812 B, avro 431 B" (each
// codec's mean encoded size), or the first error, naming the samples line.
func Check(c protocol.SourceCheck) (string, error) {
	schema, samples, err := source.ReadFiles(c.Source)
	if err != nil {
		return "", err
	}
	sizes, err := codec.CheckSamples(c.Source, c.Codecs, schema, samples)
	if err != nil {
		return "", err
	}
	parts := make([]string, len(sizes))
	for i, s := range sizes {
		parts[i] = fmt.Sprintf("%s %.0f B", s.Codec, s.MeanBytes)
	}
	return strings.Join(parts, ", "), nil
}

// checkMain is `worker check-source ...`: the outcome goes to the termination log
// (the operator reads it from the pod) and the exit code says which it was.
func checkMain(args []string, stderr io.Writer) int {
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	c, err := protocol.ParseCheck(args, stderr)
	if err != nil {
		log.Error("invalid arguments", "err", err)
		return protocol.ExitUsage
	}
	msg, err := Check(c)
	code := protocol.ExitOK
	if err != nil {
		msg, code = err.Error(), protocol.ExitInvalidSource
		log.Error("payload source check failed", "err", err)
	} else {
		log.Info("payload source checked", "codecs", msg)
	}
	if c.TerminationLog != "" {
		// The kubelet keeps at most 4096 bytes of a container's message.
		if err := os.WriteFile(c.TerminationLog, []byte(truncateMessage(msg, protocol.DefaultTerminationMax)), 0o644); err != nil {
			log.Error("write termination log", "err", err)
		}
	}
	return code
}

func truncateMessage(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
