package metrics

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// scrapers remembers, per scraping host, when its last completed scrape of
// /metrics began, so that a worker can stop as soon as every Prometheus that
// scrapes it (two, with a highly available kube-prometheus-stack) has taken the
// totals, instead of always serving for the whole grace.
type scrapers struct {
	mu      sync.Mutex
	began   map[string]time.Time // host -> start of its last completed scrape
	changed chan struct{}        // closed and replaced on every completed scrape
}

func newScrapers() *scrapers {
	return &scrapers{began: map[string]time.Time{}, changed: make(chan struct{})}
}

// track wraps the /metrics handler.
func (s *scrapers) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		h.ServeHTTP(rw, r)
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.began[host] = start
		close(s.changed)
		s.changed = make(chan struct{})
	})
}

// final says whether every host seen has completed a scrape begun after end, and
// returns the channel closed at the next completed scrape.
func (s *scrapers) final(end time.Time) (bool, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := len(s.began) > 0
	for _, began := range s.began {
		if !began.After(end) {
			all = false
			break
		}
	}
	return all, s.changed
}

// waitFinal returns once every host seen has scraped after end, or after grace.
func (s *scrapers) waitFinal(end time.Time, grace time.Duration) {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	for {
		all, changed := s.final(end)
		if all {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			return
		}
	}
}
