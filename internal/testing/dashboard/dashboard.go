// Package dashboard reads the queries of serdebench's Grafana dashboard, for the
// tests that run them against a real Prometheus (envtest's and the cluster's).
package dashboard

import (
	"encoding/json"
	"fmt"
	"regexp"
)

// Dashboard is the part of a Grafana dashboard the tests read.
type Dashboard struct {
	Panels []struct {
		Title   string `json:"title"`
		Type    string `json:"type"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
	Templating struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

// Parse decodes a dashboard's JSON.
func Parse(b []byte) (Dashboard, error) {
	var d Dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("dashboard JSON: %w", err)
	}
	return d, nil
}

// Variable is a query variable: label_values(Selector, Label).
type Variable struct {
	Name, Selector, Label string
}

var labelValues = regexp.MustCompile(`^label_values\((.+), *([a-z_]+)\)$`)

// Variables are the dashboard's query variables; one that is not
// label_values(selector, label) is an error.
func (d Dashboard) Variables() ([]Variable, error) {
	var out []Variable
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := labelValues.FindStringSubmatch(v.Definition)
		if m == nil {
			return nil, fmt.Errorf("variable %s: %q is not label_values(selector, label)", v.Name, v.Definition)
		}
		out = append(out, Variable{Name: v.Name, Selector: m[1], Label: m[2]})
	}
	return out, nil
}

// Query is what Grafana asks Prometheus for a variable's values: one series per value.
func (v Variable) Query() string { return fmt.Sprintf("count by (%s) (%s)", v.Label, v.Selector) }
