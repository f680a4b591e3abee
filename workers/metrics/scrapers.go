package metrics

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// scrapers remembers who scraped /metrics and whether each has scraped since the
// work ended, so that a worker can stop as soon as every Prometheus that scrapes
// it (two, with a highly available kube-prometheus-stack) has taken the totals,
// instead of always serving for the whole grace.
type scrapers struct {
	ended   <-chan struct{} // closed when the work ends (the totals are final)
	mu      sync.Mutex
	hosts   map[string]*scraper
	changed chan struct{} // closed and replaced on every completed scrape
}

// scraper is one scraping address.
type scraper struct {
	last time.Time // start of its last scrape during the run
	// gap is the longest time between two of its scrapes during the run: several
	// scrapers behind one address (a service mesh's sidecar, a proxy) take turns
	// within it.
	gap time.Duration
	// final: a scrape that began after the work ended has completed.
	final bool
}

func newScrapers(ended <-chan struct{}) *scrapers {
	return &scrapers{ended: ended, hosts: map[string]*scraper{}, changed: make(chan struct{})}
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// track wraps the /metrics handler.
func (s *scrapers) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start, afterEnd := time.Now(), closed(s.ended)
		h.ServeHTTP(rw, r)
		if r.Context().Err() != nil {
			return // the scraper gave up (its timeout) or went away: it took nothing
		}
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		sc := s.hosts[host]
		if sc == nil {
			sc = &scraper{}
			s.hosts[host] = sc
		}
		if afterEnd {
			sc.final = true
		} else {
			if !sc.last.IsZero() {
				sc.gap = max(sc.gap, start.Sub(sc.last))
			}
			if start.After(sc.last) { // a slow scrape never moves it back
				sc.last = start
			}
		}
		close(s.changed)
		s.changed = make(chan struct{})
	})
}

// final says whether every address seen has completed a scrape begun after the
// end, the longest gap any showed, and the channel closed at the next completed
// scrape.
func (s *scrapers) final() (bool, time.Duration, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := len(s.hosts) > 0
	var gap time.Duration
	for _, sc := range s.hosts {
		all = all && sc.final
		gap = max(gap, sc.gap)
	}
	return all, gap, s.changed
}

// waitFinal returns once every address seen has scraped after the end and one
// more of its longest gaps has passed (for scrapers sharing an address), or after
// grace.
func (s *scrapers) waitFinal(grace time.Duration) {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	for {
		all, gap, changed := s.final()
		if all {
			select {
			case <-time.After(gap):
			case <-timer.C:
			}
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			return
		}
	}
}
