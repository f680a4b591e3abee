// Package promquery reads a trial's worker series back from Prometheus, to
// cross-check the workers' own summaries and to keep a throughput time series.
package promquery

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Client queries one Prometheus server.
type Client struct {
	api promv1.API
}

// New returns a client for the Prometheus HTTP API at url, sending through rt
// (nil: http.DefaultTransport; AzureWorkloadIdentity for Azure Monitor).
func New(url string, rt http.RoundTripper) (*Client, error) {
	c, err := api.NewClient(api.Config{Address: url, RoundTripper: rt})
	if err != nil {
		return nil, fmt.Errorf("prometheus client for %s: %w", url, err)
	}
	return &Client{api: promv1.NewAPI(c)}, nil
}

// Selector picks one trial's series of one role. Namespace (the scraped pod's, a
// target label the PodMonitor sets) and ExperimentUID (the workers' own label) pick
// one experiment object: same-named experiments elsewhere or earlier never add up.
// Group (the attempt's consumer group, unique even on a shared topic) tells a
// retried trial's attempts apart.
type Selector struct {
	Namespace, ExperimentUID, Group, Trial, Role string
}

// String is the selector in PromQL label-matcher syntax.
func (s Selector) String() string {
	q := strconv.Quote
	return fmt.Sprintf(`{namespace=%s,experiment_uid=%s,group=%s,trial=%s,role=%s}`, q(s.Namespace), q(s.ExperimentUID), q(s.Group), q(s.Trial), q(s.Role))
}

// RecordsTotal is the final measured-record count of every worker matching sel,
// summed: the largest value each worker's counter reached between start and end.
func (c *Client) RecordsTotal(ctx context.Context, sel Selector, start, end time.Time) (int64, error) {
	window := end.Sub(start).Round(time.Second) + time.Second
	// One value per worker (its "worker" label): a worker scraped by two jobs (two
	// PodMonitors selecting it) is counted once.
	q := fmt.Sprintf(`sum(max by (worker) (max_over_time(serdebench_records_total%s[%ds])))`, sel, int64(window.Seconds()))
	v, _, _, err := c.api.Query(ctx, q, end)
	if err != nil {
		return 0, fmt.Errorf("query %s: %w", q, err)
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return 0, fmt.Errorf("query %s: unexpected result type %s", q, v.Type())
	}
	if len(vec) == 0 {
		return 0, fmt.Errorf("query %s: no series (was the worker scraped?)", q)
	}
	return int64(vec[0].Value), nil
}

// Point is one sample of a time series.
type Point struct {
	Time  time.Time
	Value float64
}

// RecordsRate is the measured-record rate (records/s) of the workers matching sel,
// summed, from start to end at step.
func (c *Client) RecordsRate(ctx context.Context, sel Selector, start, end time.Time, step time.Duration) ([]Point, error) {
	q := fmt.Sprintf(`sum(max by (worker) (rate(serdebench_records_total%s[%ds])))`, sel, int64(max(4*step, 2*time.Second).Seconds()))
	v, _, _, err := c.api.QueryRange(ctx, q, promv1.Range{Start: start, End: end, Step: step})
	if err != nil {
		return nil, fmt.Errorf("query range %s: %w", q, err)
	}
	m, ok := v.(model.Matrix)
	if !ok {
		return nil, fmt.Errorf("query range %s: unexpected result type %s", q, v.Type())
	}
	var out []Point
	for _, s := range m {
		for _, p := range s.Values {
			out = append(out, Point{Time: p.Timestamp.Time(), Value: float64(p.Value)})
		}
	}
	return out, nil
}
