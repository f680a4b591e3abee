// Package registrytest gives integration tests the URL of the real schema
// registry that `make test` starts (hack/registry/registry.sh). A missing
// registry fails the test loudly: integration tests never skip.
package registrytest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// URL returns the registry's Confluent-compatible API from
// SERDEBENCH_SCHEMA_REGISTRY (default http://127.0.0.1:8081/apis/ccompat/v7),
// after checking that it answers.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("SERDEBENCH_SCHEMA_REGISTRY")
	if u == "" {
		u = "http://127.0.0.1:8081/apis/ccompat/v7"
	}
	if err := answers(u); err != nil {
		t.Fatalf("no schema registry at %s (%v): run `make registry-up` or `make test`, which starts one", u, err)
	}
	return u
}

func answers(u string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u+"/subjects", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /subjects: %s", resp.Status)
	}
	return nil
}

// Topic returns a topic name no earlier run used, so its subject (<topic>-value)
// is new to the registry, which keeps what it is given while it runs.
func Topic(t testing.TB) string {
	return fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "_"), time.Now().UnixNano())
}
