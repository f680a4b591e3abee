package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/workers/payload"
)

// TestPool: the description names the record type and its schemas, and the records
// are the producer's pool in order, each line as encoding/json writes it (the size
// payloads are measured in), another producer's pool differing.
func TestPool(t *testing.T) {
	lines := func(id string) []string {
		var out, errb bytes.Buffer
		tj := `{"name":"t","codec":"json","schema":"business-record","sizeBytes":1176,"seed":7,"poolSize":5,"partitions":3}`
		if code := run([]string{"--trial", tj, "--id", id}, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		var ls []string
		for sc := bufio.NewScanner(&out); sc.Scan(); {
			ls = append(ls, sc.Text())
		}
		return ls
	}
	got := lines("0")
	if len(got) != 6 {
		t.Fatalf("%d lines, want a description and 5 records", len(got))
	}
	var h Header
	if err := json.Unmarshal([]byte(got[0]), &h); err != nil {
		t.Fatal(err)
	}
	if h.Type != "BusinessRecordS" || h.ProtoMessage != "serdebench.payload.BusinessRecordS" || !strings.Contains(h.AvroSchema, `"name":"BusinessRecordS"`) || h.Records != 5 {
		t.Fatalf("description %+v", h)
	}
	s, err := payload.Lookup("business-record")
	if err != nil {
		t.Fatal(err)
	}
	pool, err := s.Pool(payload.ProducerSeed(7, 0), 1176, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range pool {
		want, _ := json.Marshal(rec)
		if got[i+1] != string(want) {
			t.Fatalf("record %d:\n%s\nwant\n%s", i, got[i+1], want)
		}
		if len(want) != 1176 {
			t.Fatalf("record %d is %d B, want 1176", i, len(want))
		}
	}
	if other := lines("1"); other[1] == got[1] {
		t.Fatal("producer 1's pool starts with producer 0's record")
	}
	var errb bytes.Buffer
	if code := run([]string{"--trial", "{}"}, new(bytes.Buffer), &errb); code != 2 {
		t.Fatalf("a trial without a schema: exit %d, want 2", code)
	}
}
