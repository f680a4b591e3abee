package registry

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/rest"
)

// TestRetryable: answers a later try may change (408, 409, 429, 5xx, in the
// registry's long codes too, and Apicurio's 500 without a code) and no answer are
// tried again; a missing subject or
// schema, or an invalid one, are final.
func TestRetryable(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&rest.Error{Code: 409}, true}, {&rest.Error{Code: 500}, true}, {&rest.Error{Code: 50001}, true},
		{&rest.Error{Code: 0}, true}, {&rest.Error{Code: 429}, true}, {&rest.Error{Code: 408}, true}, {fmt.Errorf("register: %w", &rest.Error{Code: 503}), true},
		{errors.New("dial tcp 127.0.0.1:1: connection refused"), true},
		{&rest.Error{Code: 40401}, false}, {&rest.Error{Code: 40403}, false}, {&rest.Error{Code: 42201}, false}, {&rest.Error{Code: 404}, false},
	} {
		if got := retryable(c.err); got != c.want {
			t.Errorf("retryable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestStopEndsTries: a client whose context ends stops trying at once, where the
// waits between its tries would otherwise last seconds.
func TestStopEndsTries(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	c, err := New(ctx, "http://127.0.0.1:1/apis/ccompat/v7")
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(100*time.Millisecond, cancel)
	began := time.Now()
	_, err = c.ID("s-value", Schema{Type: Avro, Text: `"long"`})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped: %v, want the context's end", err)
	}
	if d := time.Since(began); d > time.Second {
		t.Fatalf("stopped after 100 ms, returned after %s", d)
	}
}
