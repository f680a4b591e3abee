package protocol

import "testing"

// TestLastSummaryLine: the summary is found in a log where the worker's JSON logs
// surround it, and the last summary wins.
func TestLastSummaryLine(t *testing.T) {
	log := []byte(`{"time":"t","level":"INFO","msg":"serving metrics","addr":":9090"}
{"role":"producer","worker":"0","records":1}
{"time":"t","level":"WARN","msg":"late"}
{"role":"producer","worker":"0","records":2}
`)
	got, err := LastSummaryLine(log)
	if err != nil || got != `{"role":"producer","worker":"0","records":2}` {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := LastSummaryLine([]byte("{\"level\":\"ERROR\"}\n")); err == nil {
		t.Fatal("want an error for a log without a summary")
	}
}
