// Command genazurerules writes serdebench's alert rules (a Prometheus rule file) as
// an ARM template of Azure Monitor Prometheus rule groups:
//
//	go run ./hack/genazurerules config/prometheus/rules.yaml config/azure/serdebench-rule-groups.json
package main

import (
	"fmt"
	"os"

	"github.com/serdebench/serdebench/internal/azurerules"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: genazurerules <rules.yaml> <template.json>")
		os.Exit(2)
	}
	rules, err := os.ReadFile(os.Args[1])
	if err == nil {
		var t []byte
		if t, err = azurerules.Template(rules); err == nil {
			err = os.WriteFile(os.Args[2], t, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genazurerules:", err)
		os.Exit(1)
	}
}
