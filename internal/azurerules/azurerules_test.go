package azurerules

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/alertsmanagement/armalertsmanagement"
	"sigs.k8s.io/yaml"
)

// TestTemplate: the shipped template is the rule file's translation (regenerated,
// it is byte for byte what is committed); each rule group's properties decode
// into the Azure SDK's PrometheusRuleGroupProperties and encode back unchanged
// (a field Azure does not know would be dropped), with the fields Azure requires;
// and every expression, once ARM has filled in the operator's name, is the rule
// file's, which promtool tests (TestPrometheusRules).
func TestTemplate(t *testing.T) {
	src, err := os.ReadFile("../../config/prometheus/rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Template(src)
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := os.ReadFile("../../config/azure/serdebench-rule-groups.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, shipped) {
		t.Fatal("config/azure/serdebench-rule-groups.json is stale: run make manifests")
	}
	var rules ruleFile
	if err := yaml.Unmarshal(src, &rules); err != nil {
		t.Fatal(err)
	}
	var tmpl struct {
		Parameters map[string]json.RawMessage `json:"parameters"`
		Resources  []struct {
			Type       string          `json:"type"`
			APIVersion string          `json:"apiVersion"`
			Name       string          `json:"name"`
			Properties json.RawMessage `json:"properties"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(got, &tmpl); err != nil {
		t.Fatal(err)
	}
	if len(tmpl.Resources) != len(rules.Groups) || len(tmpl.Resources) == 0 {
		t.Fatalf("%d rule groups for %d groups", len(tmpl.Resources), len(rules.Groups))
	}
	for i, r := range tmpl.Resources {
		g := rules.Groups[i]
		if r.Type != "Microsoft.AlertsManagement/prometheusRuleGroups" || r.APIVersion != APIVersion || filled(r.Name, "sb") != "sb-"+g.Name {
			t.Errorf("resource %d: %s %s %s", i, r.Type, r.APIVersion, r.Name)
		}
		var p armalertsmanagement.PrometheusRuleGroupProperties
		if err := json.Unmarshal(r.Properties, &p); err != nil {
			t.Fatalf("group %s: %v", g.Name, err)
		}
		back, err := json.Marshal(&p)
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, back, r.Properties) {
			t.Errorf("group %s does not survive the Azure SDK's model:\n%s\nback:\n%s", g.Name, r.Properties, back)
		}
		if len(p.Scopes) != 1 || p.ClusterName == nil || len(p.Rules) != len(g.Rules) {
			t.Fatalf("group %s: scopes %v, cluster %v, %d rules for %d", g.Name, p.Scopes, p.ClusterName, len(p.Rules), len(g.Rules))
		}
		for j, ar := range p.Rules {
			want := g.Rules[j]
			if ar.Expression == nil || ar.Alert == nil || *ar.Alert != want.Alert || ar.Severity == nil || len(ar.Actions) != 1 {
				t.Errorf("rule %d of %s: %+v", j, g.Name, ar)
				continue
			}
			if e := filled(*ar.Expression, "my-release"); e != strings.ReplaceAll(want.Expr, OperatorName, "my-release") {
				t.Errorf("alert %s: Azure evaluates %q, promtool tests %q", want.Alert, e, want.Expr)
			}
		}
	}
	for _, p := range []string{"clusterName", "azureMonitorWorkspaceResourceId", "actionGroupResourceId", "operatorName", "location"} {
		if tmpl.Parameters[p] == nil {
			t.Errorf("no parameter %s", p)
		}
	}
}

// filled evaluates the one ARM expression the template uses, format() over the
// operatorName parameter, as Azure Resource Manager would; a literal stays as is.
func filled(s, operatorName string) string {
	const prefix, suffix = "[format('", "', parameters('operatorName'))]"
	if !strings.HasPrefix(s, prefix) || !strings.HasSuffix(s, suffix) {
		return s
	}
	f := strings.TrimSuffix(strings.TrimPrefix(s, prefix), suffix)
	return strings.NewReplacer("{{", "{", "}}", "}", "''", "'", "{0}", operatorName).Replace(f)
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// TestISODuration: Prometheus durations as ISO 8601, and what has no whole-second
// form refused.
func TestISODuration(t *testing.T) {
	for in, want := range map[string]string{"10m": "PT10M", "1h30m": "PT1H30M", "90s": "PT1M30S", "2h": "PT2H", "1d": "PT24H"} {
		if got, err := isoDuration(in); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0s", "1.5s", "500ms", "soon"} {
		if _, err := isoDuration(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestARMString: ARM reads a string that starts with '[' as an expression: such a
// literal is escaped, and the operator's name becomes a format() over its parameter.
func TestARMString(t *testing.T) {
	for in, want := range map[string]string{
		"up == 0":                 "up == 0",
		"[runbook] see the wiki":  "[[runbook] see the wiki",
		`up{job="OPERATOR_NAME"}`: `[format('up{{job="{0}"}}', parameters('operatorName'))]`,
		"OPERATOR_NAME's alert":   `[format('{0}''s alert', parameters('operatorName'))]`,
	} {
		if got := armString(in); got != want {
			t.Errorf("armString(%q) = %q, want %q", in, got, want)
		}
		if got := filled(armString(in), OperatorName); !strings.HasPrefix(in, "[") && got != in {
			t.Errorf("%q does not come back from ARM: %q", in, got)
		}
	}
}
