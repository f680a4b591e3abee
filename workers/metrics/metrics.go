// Package metrics exposes a worker's live counters and latency histograms on
// /metrics for Prometheus. Every series carries the experiment, experiment_uid,
// topic, group, trial, codec, role and worker labels. The exact numbers are in the worker's
// summary; these series are for watching a run and for cross-checking its totals.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Labels identify a worker's series. ExperimentUID tells apart experiments of the
// same name (Prometheus adds the namespace from the scraped pod), Group (unique per
// attempt, even on a shared topic) the attempts of a retried trial.
type Labels struct {
	Experiment, ExperimentUID, Topic, Group, Trial, Codec, Role, Worker string
}

// Worker holds one worker's series.
type Worker struct {
	// Records counts measured records (producer: acknowledged; consumer: received).
	Records prometheus.Counter
	// WarmupRecords counts records excluded as warmup.
	WarmupRecords prometheus.Counter
	// SerializedBytes counts encoded value bytes of measured records.
	SerializedBytes prometheus.Counter
	// CodecSeconds is time spent in Marshal or Unmarshal for measured records.
	CodecSeconds prometheus.Counter
	// Errors counts failed sends or decodes.
	Errors prometheus.Counter
	// Latency is ack latency (producer) or end-to-end latency (consumer), from the
	// intended send time.
	Latency prometheus.Histogram
	// Done is 1 once the worker has finished its trial.
	Done prometheus.Gauge

	reg         *prometheus.Registry
	constLabels prometheus.Labels
	clientOnce  sync.Once
	client      *clientCollector
}

// New returns a worker's series registered in a registry of its own.
func New(l Labels) *Worker {
	reg := prometheus.NewRegistry()
	constLabels := prometheus.Labels{"experiment": l.Experiment, "experiment_uid": l.ExperimentUID, "topic": l.Topic, "group": l.Group, "trial": l.Trial, "codec": l.Codec, "role": l.Role, "worker": l.Worker}
	f := func(name, help string) prometheus.Counter {
		c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: "serdebench", Name: name, Help: help, ConstLabels: constLabels})
		reg.MustRegister(c)
		return c
	}
	latencyHelp := map[string]string{
		"producer": "Acknowledgement time minus intended send time of measured records.",
		"consumer": "Receive time minus intended send time of measured records.",
	}[l.Role]
	w := &Worker{
		Records:         f("records_total", "Measured records (producer: acknowledged, consumer: received)."),
		WarmupRecords:   f("warmup_records_total", "Records excluded from measurement as warmup."),
		SerializedBytes: f("serialized_bytes_total", "Encoded value bytes of measured records."),
		CodecSeconds:    f("codec_seconds_total", "Seconds spent in Marshal (producer) or Unmarshal (consumer) for measured records."),
		Errors:          f("errors_total", "Failed sends (producer) or decodes (consumer)."),
		Latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "serdebench", Name: "latency_seconds", Help: latencyHelp, ConstLabels: constLabels,
			Buckets: prometheus.ExponentialBuckets(50e-6, 2, 20),
		}),
		Done:        prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "serdebench", Name: "done", Help: "1 once the worker finished its trial.", ConstLabels: constLabels}),
		reg:         reg,
		constLabels: constLabels,
	}
	reg.MustRegister(w.Latency, w.Done, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return w
}

// Handler serves the worker's series.
func (w *Worker) Handler() http.Handler {
	return promhttp.HandlerFor(w.reg, promhttp.HandlerOpts{Registry: w.reg})
}

// Serve serves /metrics on addr until ctx ends, then until every address that
// scraped it has completed a scrape begun after ctx ended (which sees the totals)
// and one more of the longest gaps between its scrapes has passed (scrapers that
// share an address take turns within it), for at most grace: with no scraper seen
// (none yet, or a Prometheus that has not discovered the pod) the whole grace. It returns the bound address at
// once (addr may use port 0) and a wait function that blocks until the server
// stops. register, if set, adds more endpoints (the worker's control:
// workers/control).
func (w *Worker) Serve(ctx context.Context, addr string, grace time.Duration, register func(*http.ServeMux)) (string, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("listen for metrics on %s: %w", addr, err)
	}
	sc := newScrapers(ctx.Done())
	mux := http.NewServeMux()
	mux.Handle("/metrics", sc.track(w.Handler()))
	mux.HandleFunc("/healthz", func(rw http.ResponseWriter, _ *http.Request) { rw.WriteHeader(http.StatusOK) })
	if register != nil {
		register(mux)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return
		}
	}()
	stopped := make(chan struct{})
	go func() {
		<-ctx.Done()
		sc.waitFinal(grace)
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
		close(stopped)
	}()
	return ln.Addr().String(), func() { <-stopped }, nil
}
