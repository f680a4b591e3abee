package controllers_test

import (
	"errors"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	grafana "github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// TestDashboardSchema: the dashboard the chart ships passes Grafana's own schema
// (grafana-foundation-sdk, generated from Grafana's): strict decoding (every
// required field present, no unknown one, each panel's options and field config
// by its plugin's schema) and its validation rules, at the SDK's schemaVersion. No
// Grafana server runs here; TestDashboardQueries checks the queries.
func TestDashboardSchema(t *testing.T) {
	plugins.RegisterDefaultPlugins() // the panels' own option schemas
	// The classic dashboard JSON (schemaVersion), which file provisioning and the
	// kube-prometheus-stack sidecar load; dashboardv2 is Grafana 12's resource API.
	var d grafana.Dashboard //nolint:staticcheck // SA1019: what the sidecar ships is the classic form
	if err := failures(d.UnmarshalJSONStrict(shippedDashboardJSON(t))); err != nil {
		t.Fatalf("Grafana's schema refuses the dashboard:\n%v", err)
	}
	if err := failures(d.Validate()); err != nil {
		t.Fatalf("the dashboard breaks Grafana's schema rules:\n%v", err)
	}
	if want := grafana.NewDashboard().SchemaVersion; d.SchemaVersion != want {
		t.Errorf("schemaVersion %d, the SDK's (Grafana's current) is %d", d.SchemaVersion, want)
	}
	if len(d.Panels) < 10 {
		t.Fatalf("%d panels decoded", len(d.Panels))
	}
	for _, p := range d.Panels {
		if p.Panel == nil || p.Panel.Type == "row" {
			continue
		}
		// An unregistered panel type decodes into a plain map, unchecked.
		if _, plain := p.Panel.Options.(map[string]any); p.Panel.Options == nil || plain {
			t.Errorf("panel %v (%s): its options did not decode by its plugin's schema", p.Panel.Title, p.Panel.Type)
		}
	}
}

// failures is err unless it is the SDK's empty list of build errors (its strict
// decoding and validation return one, as a non-nil error, when all is well).
func failures(err error) error {
	var be cog.BuildErrors
	if errors.As(err, &be) && len(be) == 0 {
		return nil
	}
	return err
}
