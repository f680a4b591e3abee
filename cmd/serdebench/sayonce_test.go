package main

import "testing"

// TestSayOnce: `serdebench wait` shows a warning in full for the first trial that
// has it and refers back to that trial for the others.
func TestSayOnce(t *testing.T) {
	shown := map[string]string{}
	const every = "sarama keeps one request in flight per partition"
	for _, c := range []struct{ trial, msg, want string }{
		{"t000", every, every},
		{"t000", every, every}, // the same trial again (a later poll): still in full
		{"t001", "lost 3; " + every, "lost 3; (warning as for t000)"},
		{"t002", every, "(warning as for t000)"},
	} {
		if got := sayOnce(shown, c.trial, c.msg); got != c.want {
			t.Errorf("%s %q: got %q, want %q", c.trial, c.msg, got, c.want)
		}
	}
}
