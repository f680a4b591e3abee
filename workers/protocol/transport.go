package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/serdebench/serdebench/workers/summary"
)

// InLogMarker is a worker's termination message when its summary was too large for
// it: the summary is then the last summary line of the container's log.
const InLogMarker = `{"summaryInLog":true}`

// WriteSummary prints the summary as the last line of stdout, writes it to file (if
// set), and writes the termination log (if set): the summary when it fits in
// terminationMax bytes, else InLogMarker.
func WriteSummary(stdout io.Writer, sum *summary.Summary, file, terminationLog string, terminationMax int) error {
	b, err := json.Marshal(sum)
	if err != nil {
		return fmt.Errorf("encode summary: %w", err)
	}
	if _, err := fmt.Fprintln(stdout, string(b)); err != nil {
		return fmt.Errorf("print summary: %w", err)
	}
	if file != "" {
		if err := os.WriteFile(file, b, 0o644); err != nil {
			return fmt.Errorf("write summary: %w", err)
		}
	}
	if terminationLog != "" {
		msg := b
		if len(msg) > terminationMax {
			msg = []byte(InLogMarker)
		}
		if err := os.WriteFile(terminationLog, msg, 0o644); err != nil {
			return fmt.Errorf("write termination log: %w", err)
		}
	}
	return nil
}

// ErrNoSummary means a container left no summary: neither in its termination
// message nor in its log.
var ErrNoSummary = errors.New("no summary")

// ReadSummary decodes a container's summary from its termination message, or, when
// the message says it is in the log (or is empty), from the log that readLog returns.
func ReadSummary(terminationMessage string, readLog func() ([]byte, error)) (*summary.Summary, error) {
	msg := strings.TrimSpace(terminationMessage)
	if msg == InLogMarker || msg == "" {
		log, err := readLog()
		if err != nil {
			return nil, err
		}
		if msg, err = LastSummaryLine(log); err != nil {
			return nil, err
		}
	}
	s := &summary.Summary{}
	if err := json.Unmarshal([]byte(msg), s); err != nil || s.Role == "" {
		return nil, fmt.Errorf("%w in the termination message or log", ErrNoSummary)
	}
	return s, nil
}

// LastSummaryLine finds the last log line that is a worker summary (logs interleave
// the worker's stderr).
func LastSummaryLine(log []byte) (string, error) {
	var last string
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, `{"role":`) {
			last = line
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("scan log: %w", err)
	}
	if last == "" {
		return "", fmt.Errorf("%w line in the log", ErrNoSummary)
	}
	return last, nil
}

// WindowStarted is the message of the log line a producer writes when its
// measured window begins, with the instant as windowStart: the operator times a
// fault from it (a producer's setup and warmup make its window start later than
// its container).
const WindowStarted = "measured window started"

// WindowStart finds a producer's window start in its log (false: not yet).
func WindowStart(log []byte) (time.Time, bool) {
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(WindowStarted)) {
			continue
		}
		var l struct {
			Msg         string    `json:"msg"`
			WindowStart time.Time `json:"windowStart"`
		}
		if json.Unmarshal(line, &l) == nil && l.Msg == WindowStarted && !l.WindowStart.IsZero() {
			return l.WindowStart, true
		}
	}
	return time.Time{}, false
}
