// Package azurerules turns serdebench's Prometheus alert rules
// (config/prometheus/rules.yaml) into an ARM template of Azure Monitor Prometheus
// rule groups (Microsoft.AlertsManagement/prometheusRuleGroups), which AKS's
// managed Prometheus evaluates in place of PrometheusRule objects. The expressions
// are the rule file's, so what promtool tests is what Azure runs.
package azurerules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"sigs.k8s.io/yaml"
)

// OperatorName is the rule file's stand-in for the operator's name (the Helm
// release's full name): the template takes it as the operatorName parameter.
const OperatorName = "OPERATOR_NAME"

// APIVersion of the rule group resource: its current GA version.
const APIVersion = "2023-03-01"

// ruleFile is Prometheus' rule-file format, the parts serdebench's rules use.
type ruleFile struct {
	Groups []struct {
		Name     string `json:"name"`
		Interval string `json:"interval,omitempty"`
		Rules    []rule `json:"rules"`
	} `json:"groups"`
}

type rule struct {
	Alert       string            `json:"alert,omitempty"`
	Record      string            `json:"record,omitempty"`
	Expr        string            `json:"expr"`
	For         string            `json:"for,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// severities maps the rules' severity label to Azure's alert severity (0 critical
// to 4 verbose).
var severities = map[string]int{"critical": 0, "error": 1, "warning": 2, "info": 3}

// Template is the ARM deployment template of rules' groups: one rule group per
// group, scoped to an Azure Monitor workspace and an AKS cluster, each alert
// sending to one action group (the template's parameters).
func Template(rules []byte) ([]byte, error) {
	var f ruleFile
	if err := yaml.UnmarshalStrict(rules, &f); err != nil {
		return nil, fmt.Errorf("read the rule file: %w", err)
	}
	var resources []any
	for _, g := range f.Groups {
		var out []map[string]any
		for _, r := range g.Rules {
			ar := map[string]any{"expression": armString(r.Expr), "enabled": true}
			if r.Record != "" {
				ar["record"] = r.Record
			} else {
				ar["alert"] = r.Alert
				sev, ok := severities[r.Labels["severity"]]
				if !ok {
					return nil, fmt.Errorf("alert %s: severity %q has no Azure severity", r.Alert, r.Labels["severity"])
				}
				ar["severity"] = sev
				ar["actions"] = []any{map[string]any{"actionGroupId": "[parameters('actionGroupResourceId')]"}}
				ar["resolveConfiguration"] = map[string]any{"autoResolved": true, "timeToResolve": "PT10M"}
				if r.Annotations != nil {
					ar["annotations"] = armStrings(r.Annotations)
				}
			}
			if r.Labels != nil {
				ar["labels"] = armStrings(r.Labels)
			}
			if r.For != "" {
				d, err := isoDuration(r.For)
				if err != nil {
					return nil, fmt.Errorf("rule %s%s: for: %w", r.Alert, r.Record, err)
				}
				ar["for"] = d
			}
			out = append(out, ar)
		}
		interval := "PT1M" // Prometheus' (and Azure's) default evaluation interval
		if g.Interval != "" {
			d, err := isoDuration(g.Interval)
			if err != nil {
				return nil, fmt.Errorf("group %s: interval: %w", g.Name, err)
			}
			interval = d
		}
		resources = append(resources, map[string]any{
			"type":       "Microsoft.AlertsManagement/prometheusRuleGroups",
			"apiVersion": APIVersion,
			// Per release: two operators in one resource group keep their own.
			"name":     fmt.Sprintf("[format('{0}-%s', parameters('operatorName'))]", g.Name),
			"location": "[parameters('location')]",
			"properties": map[string]any{
				"description": "serdebench: " + g.Name + " (config/prometheus/rules.yaml)",
				"scopes":      []any{"[parameters('azureMonitorWorkspaceResourceId')]"},
				"clusterName": "[parameters('clusterName')]",
				"enabled":     true,
				"interval":    interval,
				"rules":       out,
			},
		})
	}
	param := func(description string, def any) map[string]any {
		p := map[string]any{"type": "string", "metadata": map[string]any{"description": description}}
		if def != nil {
			p["defaultValue"] = def
		}
		return p
	}
	t := map[string]any{
		"$schema":        "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
		"contentVersion": "1.0.0.0",
		"metadata":       map[string]any{"description": "serdebench's alert rules for AKS's managed Prometheus, generated from config/prometheus/rules.yaml by hack/genazurerules: do not edit."},
		"parameters": map[string]any{
			"location":                        param("Region of the rule groups: the Azure Monitor workspace's.", "[resourceGroup().location]"),
			"clusterName":                     param("The AKS cluster whose series the rules evaluate (its name, the cluster label the ama-metrics add-on sets).", nil),
			"azureMonitorWorkspaceResourceId": param("Resource ID of the Azure Monitor workspace the cluster's managed Prometheus writes to.", nil),
			"actionGroupResourceId":           param("Resource ID of the action group alerts notify.", nil),
			"operatorName":                    param("The operator's name: the serdebench Helm release's full name.", "serdebench-operator"),
		},
		"resources": resources,
	}
	// Unescaped: a reader sees the PromQL as written (> not \u003e).
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(t); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// armString is s as an ARM template string: a literal, or where it names the
// operator, a format() over the operatorName parameter. A literal starting with
// '[' would read as an expression, so ARM's escape doubles it.
func armString(s string) string {
	if !strings.Contains(s, OperatorName) {
		if strings.HasPrefix(s, "[") {
			return "[" + s
		}
		return s
	}
	f := strings.NewReplacer("{", "{{", "}", "}}", "'", "''").Replace(s)
	f = strings.ReplaceAll(f, OperatorName, "{0}")
	return fmt.Sprintf("[format('%s', parameters('operatorName'))]", f)
}

// armStrings is m with every value an ARM literal.
func armStrings(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = armString(v)
	}
	return out
}

// isoDuration is a Prometheus duration (e.g. 10m, 1h30m, 1d) in ISO 8601 (PT10M,
// PT1H30M, PT24H), as Azure takes them.
func isoDuration(d string) (string, error) {
	md, err := model.ParseDuration(d)
	v := time.Duration(md)
	if err != nil || v <= 0 || v%time.Second != 0 {
		return "", fmt.Errorf("%q is not a positive whole number of seconds", d)
	}
	out := "PT"
	if h := v / time.Hour; h > 0 {
		out += fmt.Sprintf("%dH", h)
		v -= h * time.Hour
	}
	if m := v / time.Minute; m > 0 {
		out += fmt.Sprintf("%dM", m)
		v -= m * time.Minute
	}
	if s := v / time.Second; s > 0 {
		out += fmt.Sprintf("%dS", s)
	}
	return out, nil
}
