package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// thesisRows are the thesis batch test's twelve trials as one run prints them:
// four codecs × three sizes under the same settings, each value distinct.
func thesisRows() []Row {
	var rows []Row
	for i, codec := range []string{"json", "avro", "protobuf", "msgpack"} {
		for j, size := range []int32{1176, 4696, 9312} {
			k := float64(10*i + j + 1)
			name := fmt.Sprintf("t%03d-%s-%db", 3*i+j, codec, size)
			rows = append(rows, Row{Name: name, Config: name, Runs: 1, Codec: codec, SizeBytes: size, Schema: "business-record",
				Settings: "batch acks=1 snappy batch=100000 linger=100ms", SerializedBytes: 100 + k, RecordsPerSecond: 20000 + k,
				MBPerSec: k, SerMicros: 1 + k/100, DeserMicros: 2 + k/100, P50: 110591 + int64(k), P99: 230000 + 1000*int64(k),
				WorkerCPUMicros: 30 + k, UsageScope: "process", HeaderBytes: 56})
		}
	}
	return rows
}

// TestTableForPeople: the default table fits 120 columns, says the settings every
// trial shares once above it, prints latencies in ms, marks each payload's
// recommended row and shows each row's own value under each header; -o wide keeps
// every column.
func TestTableForPeople(t *testing.T) {
	rows := thesisRows()
	var out bytes.Buffer
	marks := Marks{"t007-protobuf-4696b": Best, "t006-protobuf-1176b": Ahead}
	if err := Table(&out, rows, marks); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	t.Log("\n" + s)
	for _, l := range strings.Split(s, "\n") {
		if n := utf8.RuneCountInString(l); n > Width {
			t.Errorf("line of %d characters: %q", n, l)
		}
	}
	lines := strings.Split(s, "\n")
	if lines[0] != "Every trial: batch acks=1 snappy batch=100000 linger=100ms" || strings.Count(s, "acks=1") != 1 {
		t.Fatalf("settings not said once above the table:\n%s", s)
	}
	header := lines[1]
	if strings.Contains(header, "SETTINGS") || strings.Contains(header, "p50 µs") || !strings.Contains(header, "p50 ms") || !strings.Contains(header, "p99 ms") {
		t.Fatalf("header %q", header)
	}
	// Rows of one payload together; every cell right-aligned under its header.
	cell := func(line, col string) string {
		// In characters: µ is two bytes.
		before, _, ok := strings.Cut(header, col)
		if !ok {
			t.Fatalf("no column %s in %q", col, header)
		}
		end := utf8.RuneCountInString(before) + utf8.RuneCountInString(col)
		fields := strings.Fields(string([]rune(line)[:end]))
		return fields[len(fields)-1]
	}
	for i, r := range byChoice(Aggregate(rows)) {
		line := lines[2+i]
		k := r.MBPerSec
		for col, want := range map[string]string{"CODEC": r.Codec, "SIZE B": fmt.Sprint(r.SizeBytes), "SER B": fmt.Sprintf("%.0f", 100+k),
			"REC/S": fmt.Sprintf("%.0f", 20000+k), "p50 ms": fmt.Sprintf("%.0f", float64(110591+int64(k))/1e3),
			"p99 ms": fmt.Sprintf("%.0f", float64(230000+1000*int64(k))/1e3), "CPU µs/REC": fmt.Sprintf("%.1f", 30+k)} {
			if got := cell(line, col); got != want {
				t.Errorf("row %s: %s shows %q, want %q\n%s", r.Name, col, got, want, s)
			}
		}
		mark := strings.Fields(line)[0]
		switch {
		case marks[r.Name] != "" && mark != string(marks[r.Name]):
			t.Errorf("row %s: mark %q, want %q", r.Name, mark, marks[r.Name])
		case marks[r.Name] == "" && mark != r.Codec:
			t.Errorf("row %s marked %q", r.Name, mark)
		}
		if wantSize := []int32{1176, 4696, 9312}[i/4]; r.SizeBytes != wantSize {
			t.Errorf("row %d is %d B, want the %d B rows together", i, r.SizeBytes, wantSize)
		}
	}
	if !strings.Contains(s, "No record was lost or duplicated.") || !strings.Contains(s, "-o wide") || !strings.Contains(s, "*: the recommended trial") {
		t.Errorf("footnotes:\n%s", s)
	}

	// A loss is never left out to fit, and columns are dropped least telling first.
	rows[4].Lost = 7
	rows[0].Settings += " client=franz-go consumers=java inflight=1 idempotent partitioner=sticky"
	out.Reset()
	if err := Table(&out, rows, nil); err != nil {
		t.Fatal(err)
	}
	s = out.String()
	header = strings.Split(s, "\n")[1]
	for _, col := range []string{"LOST", "DUP", "SETTINGS", "REC/S", "p99 ms"} {
		if !strings.Contains(header, col) {
			t.Errorf("no %s in %q", col, header)
		}
	}
	if !strings.Contains(s, "Left out to fit 120 columns: MB/S") {
		t.Errorf("dropped columns not said:\n%s", s)
	}

	out.Reset()
	if err := WideTable(&out, thesisRows()); err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"SETTINGS", "HDR B", "MB/S", "E2E mean µs", "p99.9 µs", "max µs", "RSS MB", "LOST"} {
		if !strings.Contains(strings.Split(out.String(), "\n")[0], col) {
			t.Errorf("-o wide lacks %s", col)
		}
	}
}

// TestMillis: three significant digits, whole milliseconds at least.
func TestMillis(t *testing.T) {
	for us, want := range map[int64]string{110591: "111", 35967: "36.0", 9951: "9.95", 940: "0.94", 0: "0.00"} {
		if got := Millis(us); got != want {
			t.Errorf("Millis(%d) = %q, want %q", us, got, want)
		}
	}
}

// TestWrap: a long line breaks under Width, its continuations indented two more
// than it; short lines and blank lines before them stay as they are.
func TestWrap(t *testing.T) {
	long := "  " + strings.Repeat("word ", 40) + "end\n"
	got := Wrap(long)
	for i, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if utf8.RuneCountInString(l) > Width || (i > 0 && !strings.HasPrefix(l, "    w") && !strings.HasPrefix(l, "    e")) {
			t.Errorf("line %d %q", i, l)
		}
	}
	if Wrap("\nshort\n") != "\nshort\n" {
		t.Errorf("%q", Wrap("\nshort\n"))
	}
}
