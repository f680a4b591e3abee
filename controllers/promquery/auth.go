package promquery

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

// AzureMonitorScope is the Entra ID scope of Azure Monitor workspaces' Prometheus
// query endpoints (https://<workspace>.<region>.prometheus.monitor.azure.com).
const AzureMonitorScope = "https://prometheus.monitor.azure.com/.default"

// refreshBefore is how long before a token expires a new one is fetched.
const refreshBefore = 5 * time.Minute

// AzureWorkloadIdentity authenticates queries to an Azure Monitor workspace as
// the operator's workload identity: AKS's workload identity webhook gives the pod
// AZURE_CLIENT_ID, AZURE_TENANT_ID and AZURE_FEDERATED_TOKEN_FILE (the chart's
// prometheus.auth=azureWorkloadIdentity asks for them), and the identity needs
// the Monitoring Data Reader role on the workspace (docs/aks.md).
func AzureWorkloadIdentity() (http.RoundTripper, error) {
	cred, err := azidentity.NewWorkloadIdentityCredential(nil)
	if err != nil {
		return nil, fmt.Errorf("azure workload identity: %w", err)
	}
	return &Bearer{Token: func(ctx context.Context) (string, time.Time, error) {
		t, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{AzureMonitorScope}})
		return t.Token, t.ExpiresOn, err
	}}, nil
}

// Bearer adds an access token to every request: Token's, kept until refreshBefore
// its expiry. Safe for concurrent use.
type Bearer struct {
	// Token fetches a token and its expiry.
	Token func(context.Context) (string, time.Time, error)
	// Next sends the request (default http.DefaultTransport); Now is the clock
	// (default time.Now).
	Next http.RoundTripper
	Now  func() time.Time

	mu      sync.Mutex
	token   string
	expires time.Time
}

// RoundTrip sends req with the Authorization header set.
func (b *Bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	token, err := b.current(req.Context())
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close() // a RoundTripper closes the body, even on error
		}
		return nil, fmt.Errorf("prometheus credentials: %w", err)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+token)
	next := b.Next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(req)
}

func (b *Bearer) current(ctx context.Context) (string, error) {
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.token != "" && now().Add(refreshBefore).Before(b.expires) {
		return b.token, nil
	}
	token, expires, err := b.Token(ctx)
	if err != nil {
		return "", err
	}
	b.token, b.expires = token, expires
	return token, nil
}
