package htmlreport

import (
	_ "embed" // the page template
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/serdebench/serdebench/internal/compare"
	"github.com/serdebench/serdebench/internal/recommend"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/stats"
	"github.com/serdebench/serdebench/third_party/echarts"
)

//go:embed page.html.tmpl
var pageTemplate string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	// num takes float64 and compare.Num alike.
	"num": func(x any, prec int) string {
		v := reflect.ValueOf(x).Float()
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "n/a" // not available, never 0
		}
		return strconv.FormatFloat(v, 'f', prec, 64)
	},
	"pct": func(v float64) string { return strconv.FormatFloat(100*v, 'f', 0, 64) + " %" },
}).Parse(pageTemplate))

// Advice is what the report opens with: the last run's recommendation, one
// line per choice, inconclusive ones first with what to run.
type Advice struct {
	Run, Objective, Advice, Error string
	Choices                       []AdviceLine
}

// AdviceLine is one choice of the recommendation in words.
type AdviceLine struct {
	For, Line    string
	Inconclusive bool
}

// AdviceOf is run's recommendation in words.
func AdviceOf(run Run) Advice {
	a := Advice{Run: run.Label}
	r, err := recommend.Recommend(run.Runs, run.Objective)
	a.Objective = r.Objective
	if err != nil {
		a.Error = err.Error()
		return a
	}
	a.Advice = strings.ReplaceAll(r.Advice(run.TrialSeconds), "`", "") // markdown's quotes, not the page's
	for _, c := range r.Choices {
		line := r.Line(c)
		a.Choices = append(a.Choices, AdviceLine{For: c.For, Line: strings.TrimPrefix(line, c.For+": "), Inconclusive: c.Inconclusive()})
	}
	return a
}

// Write writes the report on runs (the last one is compared with the ones before it
// when there are several) as one HTML file.
func Write(w io.Writer, runs []Run, generated time.Time) error {
	if len(runs) == 0 {
		return fmt.Errorf("no runs to report")
	}
	for _, r := range runs {
		if len(r.Trials) != len(r.Rows) {
			return fmt.Errorf("run %s: %d trials for %d rows", r.Label, len(r.Trials), len(r.Rows))
		}
	}
	charts := Charts(runs)
	type chartData struct {
		Chart
		JSON template.JS
	}
	data := struct {
		Runs       []Run
		Columns    []string
		Charts     []chartData
		Comparison *compare.Result
		// Changes are what changed between the runs besides their specs.
		Changes    []string
		Options    compare.Options
		Confidence float64
		Generated  string
		ECharts    template.JS
		Version    string
		Advice     Advice
	}{Advice: AdviceOf(runs[len(runs)-1]), Runs: runs, Columns: report.Columns(), Generated: generated.UTC().Format(time.RFC3339),
		ECharts: template.JS(echarts.JS), Version: echarts.Version, Confidence: stats.Confidence, Options: compare.DefaultOptions}
	for _, c := range charts {
		// encoding/json escapes <, > and & in strings, so no value can end the script.
		js, err := json.Marshal(c.Option)
		if err != nil {
			return fmt.Errorf("chart %s: %w", c.ID, err)
		}
		data.Charts = append(data.Charts, chartData{Chart: c, JSON: template.JS(js)})
	}
	if len(runs) > 1 {
		history := make([][]report.Row, 0, len(runs))
		for _, r := range runs {
			history = append(history, r.Runs)
		}
		res, _ := compare.Replay(history, compare.DefaultOptions)
		data.Comparison = &res
		versions := make([]compare.Versions, len(runs))
		for i, r := range runs {
			versions[i] = r.Versions
		}
		for _, c := range compare.Changes(versions) {
			data.Changes = append(data.Changes, c.String(runs[c.At].Label, runs[c.Since].Label))
		}
	}
	if err := page.Execute(w, data); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
