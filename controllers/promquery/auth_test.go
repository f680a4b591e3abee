package promquery

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestBearer: every request carries the token; a token is fetched once and kept
// until five minutes before it expires; a failure to get one fails the request
// without sending it.
func TestBearer(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	now := time.Unix(1_800_000_000, 0)
	var fetched atomic.Int32
	b := &Bearer{Now: func() time.Time { return now }, Token: func(context.Context) (string, time.Time, error) {
		n := fetched.Add(1)
		return fmt.Sprintf("t%d", n), now.Add(time.Hour), nil
	}}
	c := &http.Client{Transport: b}
	get := func() string {
		t.Helper()
		resp, err := c.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return got.Load().(string)
	}
	if h := get(); h != "Bearer t1" {
		t.Fatalf("Authorization %q", h)
	}
	now = now.Add(54 * time.Minute)
	if h := get(); h != "Bearer t1" || fetched.Load() != 1 {
		t.Fatalf("54 min in: %q after %d fetches, want the first token kept", h, fetched.Load())
	}
	now = now.Add(2 * time.Minute) // 4 min before expiry
	if h := get(); h != "Bearer t2" {
		t.Fatalf("4 min before expiry: %q, want a new token", h)
	}
	b.Token = func(context.Context) (string, time.Time, error) { return "", time.Time{}, errors.New("no identity") }
	now = now.Add(2 * time.Hour)
	got.Store("")
	if _, err := c.Get(srv.URL); err == nil || !strings.Contains(err.Error(), "no identity") || got.Load().(string) != "" {
		t.Fatalf("a failed token: err %v, sent %q", err, got.Load())
	}
}

// TestAzureWorkloadIdentityNeedsItsEnvironment: outside a pod the workload
// identity webhook prepared (no AZURE_CLIENT_ID and the rest), azidentity says
// what is missing.
func TestAzureWorkloadIdentityNeedsItsEnvironment(t *testing.T) {
	for _, v := range []string{"AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_FEDERATED_TOKEN_FILE"} {
		t.Setenv(v, "") // restored after the test
		if err := os.Unsetenv(v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := AzureWorkloadIdentity(); err == nil || !strings.Contains(err.Error(), "no client ID specified") {
		t.Fatalf("err %v: want azidentity's complaint about the missing client ID", err)
	}
}
