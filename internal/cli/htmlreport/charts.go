package htmlreport

import (
	"fmt"
	"slices"
	"strings"

	"github.com/serdebench/serdebench/internal/recommend"
	"github.com/serdebench/serdebench/internal/report"
)

// Chart is one ECharts chart: its element id, heading, what it shows, and its option
// (ECharts' configuration object, marshalled to JSON into the page).
type Chart struct {
	ID, Title, Caption string
	Option             map[string]any
	// Points is how many data points the chart draws (the browser test compares it
	// with what ECharts holds).
	Points int
}

// labeler names trials in legends and axes: the codec, plus whatever else varies
// between the trials (schema, payload compression, settings); variant leaves out
// the size.
type labeler struct{ schema, compression, settings bool }

func newLabeler(runs []Run) labeler {
	seen := map[string]map[string]bool{"schema": {}, "compression": {}, "settings": {}}
	for _, r := range runs {
		for _, row := range r.Rows {
			seen["schema"][row.Schema] = true
			seen["compression"][row.PayloadCompression] = true
			seen["settings"][row.Settings] = true
		}
	}
	return labeler{len(seen["schema"]) > 1, len(seen["compression"]) > 1, len(seen["settings"]) > 1}
}

func (l labeler) variant(r report.Row) string {
	parts := []string{r.Codec}
	if l.schema {
		parts = append(parts, r.Schema)
	}
	if l.compression && r.PayloadCompression != "" && r.PayloadCompression != "none" {
		parts = append(parts, "+"+r.PayloadCompression)
	}
	if l.settings {
		parts = append(parts, "("+r.Settings+")")
	}
	return strings.Join(parts, " ")
}

func (l labeler) trial(r report.Row) string { return fmt.Sprintf("%s %d B", l.variant(r), r.SizeBytes) }

// seriesName adds the run's label when several runs are compared.
func seriesName(runs []Run, i int, name string) string {
	if len(runs) == 1 {
		return name
	}
	return fmt.Sprintf("%s [%s]", name, runs[i].Label)
}

// Charts builds the report's charts.
func Charts(runs []Run) []Chart {
	l := newLabeler(runs)
	return []Chart{
		paretoChart(runs, l),
		perVariant(runs, l, "throughput", "Throughput per codec and size", "records/s",
			"Records per second end to end (producers' measured window, warmup excluded); one bar per payload size. "+
				"A repeated trial's bar is the median over its repetitions, its error bar the median's confidence interval (the table says at which confidence).",
			"recordsPerSecond"),
		perVariant(runs, l, "size", "Serialized size per codec", "bytes/record",
			"Mean serialized value size, before any payload compression; one bar per payload size.",
			"serializedBytesPerRecord"),
		serdeTime(runs, l),
		serdeShare(runs, l),
		perVariant(runs, l, "cpu", "CPU time per record", "ns/record",
			"The workers' CPU time (user + system, producers and consumers) per measured record over the producers' window: what a codec costs in cores, "+
				"the Kafka client's work included. In `serdebench run` every worker shares one process, measured as a whole.",
			"resources.workerCPUNanosPerRecord"),
		latency(runs, l),
		overTime(runs, l),
		p99OverTime(runs, l),
	}
}

// paretoChart draws the last run's trials by records/s and end-to-end p99, one
// series per recommendation choice (a payload and what else the team does not
// choose: comparing across them answers nothing), every point labelled, each
// choice's recommended trial marked; error bars where a trial's figures are
// medians of repetitions.
func paretoChart(runs []Run, l labeler) Chart {
	run := runs[len(runs)-1]
	rps := report.Metrics[0]
	p99, _ := report.MetricNamed("endToEndMicros.p99")
	rec, err := recommend.Recommend(run.Runs, run.Objective)
	caption := "Each trial of " + run.Label + " by records/s (higher is better) and end-to-end p99 in ms (lower is better), one colour per payload; " +
		"the pin marks each payload's recommended trial (or, where inconclusive, the one ahead so far); error bars are a repeated trial's median intervals (the table gives their confidence). "
	if err != nil {
		caption += "No recommendation: " + err.Error() + "."
	}
	best := map[string]bool{}
	for _, c := range rec.Choices {
		best[c.Best] = true
	}
	var order []string
	groups := map[string][]any{}
	var pins, errs []any
	points := 0
	for _, row := range run.Rows {
		x, y := round(rps.Of(row)), round(p99.Of(row)/1e3)
		pt := map[string]any{"value": []float64{x, y}, "name": l.trial(row)}
		k := report.GivenOf(row)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], pt)
		points++
		if err == nil && best[row.Name] {
			pins = append(pins, pt)
			points++
		}
		if lo, hi, ok := interval(row, rps); ok {
			errs = append(errs, []float64{round(lo), y}, []float64{round(hi), y}, nil)
			points += 2
		}
		if lo, hi, ok := interval(row, p99); ok {
			errs = append(errs, []float64{x, round(lo / 1e3)}, []float64{x, round(hi / 1e3)}, nil)
			points += 2
		}
	}
	label := map[string]any{"show": true, "formatter": "{b}", "position": "right", "fontSize": 10}
	var series []map[string]any
	for _, k := range order {
		series = append(series, map[string]any{"type": "scatter", "name": k, "data": groups[k], "symbolSize": 10, "z": 5, "label": label})
	}
	if len(pins) > 0 {
		series = append(series, map[string]any{"type": "scatter", "name": "recommended", "data": pins, "symbol": "pin", "symbolSize": 30, "z": 6})
	}
	if len(errs) > 0 {
		series = append(series, map[string]any{"type": "line", "name": "intervals", "data": errs, "symbol": "none", "connectNulls": false,
			"silent": true, "z": 3, "lineStyle": map[string]any{"color": "#1f2328", "width": 1.2}, "tooltip": map[string]any{"show": false}})
	}
	opt := map[string]any{
		"tooltip": map[string]any{"trigger": "item"},
		"legend":  map[string]any{"top": 0},
		"grid":    map[string]any{"top": 60, "bottom": 50, "left": 80, "right": 40},
		"xAxis":   map[string]any{"type": "value", "name": "records/s", "scale": true},
		"yAxis":   map[string]any{"type": "value", "name": "p99 ms", "scale": true},
		"series":  series,
	}
	return Chart{ID: "pareto", Title: "Records/s against p99, per payload", Caption: caption, Option: opt, Points: points}
}

func barOption(unit string, cats []string, series []map[string]any) map[string]any {
	return map[string]any{
		"tooltip": map[string]any{"trigger": "axis"},
		"legend":  map[string]any{"top": 0, "type": "scroll"},
		"grid":    map[string]any{"top": 60, "bottom": 110, "left": 80, "right": 30},
		"xAxis":   map[string]any{"type": "category", "data": cats, "axisLabel": map[string]any{"rotate": 30, "interval": 0}},
		"yAxis":   map[string]any{"type": "value", "name": unit},
		"series":  series,
	}
}

// perVariant is a bar chart of one metric (report.Metrics, in its unit): codec
// variants on the axis, a bar per payload size (and run), with an error bar where
// the row is the median of repetitions.
func perVariant(runs []Run, l labeler, id, title, unit, caption, metric string) Chart {
	m, _ := report.MetricNamed(metric)
	var cats []string
	type key struct {
		run  int
		size int32
	}
	var keys []key
	vals := map[key]map[string]float64{}
	bars := map[key]map[string][2]float64{}
	for i, r := range runs {
		for _, row := range r.Rows {
			v := l.variant(row)
			if !slices.Contains(cats, v) {
				cats = append(cats, v)
			}
			k := key{i, row.SizeBytes}
			if vals[k] == nil {
				keys = append(keys, k)
				vals[k], bars[k] = map[string]float64{}, map[string][2]float64{}
			}
			vals[k][v] = m.Of(row)
			if lo, hi, ok := interval(row, m); ok {
				bars[k][v] = [2]float64{lo, hi}
			}
		}
	}
	points := 0
	var series, errorBars []map[string]any
	for n, k := range keys {
		data := make([]any, len(cats))
		var errs []any
		for j, c := range cats {
			if v, ok := vals[k][c]; ok {
				data[j] = round(v)
				points++
			}
			if b, ok := bars[k][c]; ok {
				// The bars fill 80 % of a category's band without gaps (barCategoryGap
				// 20 %, barGap 0): series n of len(keys) is centred at x; on the value
				// axis laid over the category axis, category j spans j ± 0.5.
				w := 0.8 / float64(len(keys))
				x, c := float64(j)-0.4+(float64(n)+0.5)*w, w/4
				lo, hi := round(b[0]), round(b[1])
				errs = append(errs, []float64{x, lo}, []float64{x, hi}, nil, []float64{x - c, lo}, []float64{x + c, lo}, nil,
					[]float64{x - c, hi}, []float64{x + c, hi}, nil)
				points += 6
			}
		}
		name := seriesName(runs, k.run, fmt.Sprintf("%d B", k.size))
		series = append(series, map[string]any{"type": "bar", "name": name, "data": data, "barGap": "0%", "barCategoryGap": "20%"})
		if len(errs) > 0 {
			errorBars = append(errorBars, map[string]any{"type": "line", "name": name, "data": errs, "xAxisIndex": 1, "symbol": "none",
				"connectNulls": false, "silent": true, "z": 10, "lineStyle": map[string]any{"color": "#1f2328", "width": 1.5},
				"tooltip": map[string]any{"show": false}})
		}
	}
	opt := barOption(unit, cats, append(series, errorBars...))
	if len(errorBars) > 0 {
		// A hidden value axis over the category axis places the error bars within
		// a category's band (ECharts' common bundle has no custom series).
		opt["xAxis"] = []any{opt["xAxis"], map[string]any{"type": "value", "min": -0.5, "max": float64(len(cats)) - 0.5, "show": false}}
		// Else the value axis's 0 (the first category's centre) would carry the y axis.
		opt["yAxis"].(map[string]any)["axisLine"] = map[string]any{"onZero": false}
	}
	return Chart{ID: id, Title: title, Caption: caption, Option: opt, Points: points}
}

// interval is a repeated row's confidence interval of m (ok false for one run).
func interval(row report.Row, m report.Metric) (lo, hi float64, ok bool) {
	e, has := row.Estimates[m.Name]
	if row.Runs < 2 || !has || e.N < 2 {
		return 0, 0, false
	}
	return e.Low, e.High, true
}

// trialCats are every trial's label, in run and plan order, without repeats.
func trialCats(runs []Run, l labeler) []string {
	var cats []string
	for _, r := range runs {
		for _, row := range r.Rows {
			if c := l.trial(row); !slices.Contains(cats, c) {
				cats = append(cats, c)
			}
		}
	}
	return cats
}

// perTrial is one series per run and metric over every trial.
func perTrial(runs []Run, l labeler, cats []string, names []string, values func(report.Row) []float64) ([]map[string]any, int) {
	points := 0
	var series []map[string]any
	for i, r := range runs {
		for m, name := range names {
			data := make([]any, len(cats))
			for _, row := range r.Rows {
				data[slices.Index(cats, l.trial(row))] = round(values(row)[m])
				points++
			}
			series = append(series, map[string]any{"type": "bar", "name": seriesName(runs, i, name), "data": data})
		}
	}
	return series, points
}

func serdeTime(runs []Run, l labeler) Chart {
	cats := trialCats(runs, l)
	series, n := perTrial(runs, l, cats, []string{"serialize", "deserialize"},
		func(r report.Row) []float64 { return []float64{r.SerMicros, r.DeserMicros} })
	title := "(De)serialization time per record"
	return Chart{ID: "serde-time", Title: title, Points: n, Option: barOption("µs/record", cats, series),
		Caption: "Mean time to serialize (producers) and deserialize (consumers) one record, in microseconds, from the merged histograms."}
}

func serdeShare(runs []Run, l labeler) Chart {
	cats := trialCats(runs, l)
	series, n := perTrial(runs, l, cats, []string{"serialize share", "deserialize share"},
		func(r report.Row) []float64 { return []float64{r.SerPct, r.DeserPct} })
	title := "Share of time spent in (de)serialization"
	opt := barOption("% of worker time", cats, series)
	opt["yAxis"].(map[string]any)["max"] = 100
	return Chart{ID: "serde-share", Title: title, Points: n, Option: opt,
		Caption: "Serialization's share of the producers' send time and deserialization's share of the consumers' receive time, in percent: two different workers' time, so side by side, not stacked."}
}

// lines is one line per trial and run, through the points each trial has, and the
// number of points. With shaded, a trial's fault window is shaded behind its line.
func lines(runs []Run, l labeler, points func(Trial) [][2]any, shaded bool) ([]map[string]any, int) {
	n := 0
	var series []map[string]any
	for i, r := range runs {
		for j, row := range r.Rows {
			data := points(r.Trials[j])
			n += len(data)
			if len(data) > 0 {
				s := map[string]any{"type": "line", "name": seriesName(runs, i, l.trial(row)), "data": data,
					"symbolSize": 6, "showSymbol": len(data) < 30}
				if f := r.Trials[j].Fault; shaded && f != nil {
					s["markArea"] = map[string]any{"silent": true, "itemStyle": map[string]any{"color": "rgba(220, 60, 60, 0.12)"},
						"label": map[string]any{"position": "insideTop"},
						"data":  [][2]map[string]any{{{"name": f.Name, "xAxis": round(f.From)}, {"xAxis": round(f.To)}}}}
				}
				series = append(series, s)
			}
		}
	}
	return series, n
}

func lineOption(xAxis, yAxis map[string]any, series []map[string]any) map[string]any {
	return map[string]any{
		"tooltip": map[string]any{"trigger": "axis"},
		"legend":  map[string]any{"top": 0, "type": "scroll"},
		"grid":    map[string]any{"top": 60, "bottom": 50, "left": 80, "right": 30},
		"xAxis":   xAxis,
		"yAxis":   yAxis,
		"series":  series,
	}
}

// latency draws each trial's percentile curve; the latency axis is logarithmic.
func latency(runs []Run, l labeler) Chart {
	series, n := lines(runs, l, func(t Trial) [][2]any {
		var data [][2]any
		for _, p := range t.Latency {
			data = append(data, [2]any{p.Label, p.Micros})
		}
		return data
	}, false)
	return Chart{ID: "latency", Title: "End-to-end latency percentiles", Points: n,
		Caption: "Latency from each record's intended send time to its receipt (no coordinated omission), in microseconds on a log axis, from the merged HdrHistograms.",
		Option: lineOption(map[string]any{"type": "category", "name": "percentile", "data": PercentileLabels, "boundaryGap": false},
			map[string]any{"type": "log", "name": "µs", "logBase": 10}, series)}
}

func overTime(runs []Run, l labeler) Chart {
	series, n := lines(runs, l, func(t Trial) [][2]any {
		var data [][2]any
		for _, s := range t.Throughput {
			data = append(data, [2]any{round(s.Seconds), round(s.RecordsPerSecond)})
		}
		return data
	}, true)
	return Chart{ID: "over-time", Title: "Throughput over time", Points: n,
		Caption: "Records per second acknowledged in each interval of the measured window (the first and last intervals are partial); a trial's fault window is shaded.",
		Option:  lineOption(map[string]any{"type": "value", "name": "s"}, map[string]any{"type": "value", "name": "records/s"}, series)}
}

// p99OverTime draws each trial's end-to-end p99 per interval, its fault shaded.
func p99OverTime(runs []Run, l labeler) Chart {
	series, n := lines(runs, l, func(t Trial) [][2]any {
		var data [][2]any
		for _, s := range t.P99 {
			if s.EndToEndMicros > 0 {
				data = append(data, [2]any{round(s.Seconds), s.EndToEndMicros})
			}
		}
		return data
	}, true)
	return Chart{ID: "p99-over-time", Title: "End-to-end p99 over time", Points: n,
		Caption: "The p99 end-to-end latency of the records due in each interval (1% precision), in microseconds on a log axis; a trial's fault window is shaded.",
		Option:  lineOption(map[string]any{"type": "value", "name": "s"}, map[string]any{"type": "log", "name": "µs", "logBase": 10}, series)}
}

// round keeps two decimals: the page stays small and the numbers readable.
func round(v float64) float64 {
	return float64(int64(v*100+0.5)) / 100
}
