package registry_test

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/serdebench/serdebench/internal/testing/registrytest"
	"github.com/serdebench/serdebench/workers/registry"
)

// TestClientAgainstRegistry: against the real registry, a schema registers once
// (one request) and its id is read from the cache after, as the Confluent
// serializers do; a second client (another worker) asks again and gets the same
// id; the writer's schema comes back by id once, then from the cache.
func TestClientAgainstRegistry(t *testing.T) {
	url := registrytest.URL(t)
	subject := registrytest.Topic(t) + "-value"
	s := registry.Schema{Type: registry.Avro, Text: `{"type":"record","name":"R","namespace":"io.serdebench.test","fields":[{"name":"a","type":"long"}]}`}
	c, err := registry.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.ID(subject, s)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if again, err := c.ID(subject, s); err != nil || again != id {
			t.Fatalf("cached id %d (%v), want %d", again, err, id)
		}
	}
	if n, d := c.Requests(); n != 1 || d <= 0 {
		t.Errorf("101 lookups of one schema: %d requests taking %s, want 1", n, d)
	}
	other, err := registry.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := other.ID(subject, s); err != nil || again != id {
		t.Fatalf("another client: id %d (%v), want %d", again, err, id)
	}
	for range 10 {
		w, err := other.Writer(subject, id)
		if err != nil {
			t.Fatal(err)
		}
		if w.Type != registry.Avro || w.Text != s.Text {
			t.Fatalf("writer schema %+v, want %+v", w, s)
		}
	}
	if n, _ := other.Requests(); n != 2 {
		t.Errorf("a registration and ten lookups by id: %d requests, want 2", n)
	}
	if _, err := other.Writer(subject, 1<<30); err == nil {
		t.Error("an unknown id: no error")
	}
	bad, err := registry.New(t.Context(), "http://127.0.0.1:1/apis/ccompat/v7")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.ID(subject, s); err == nil || !bytes.Contains([]byte(err.Error()), []byte("127.0.0.1:1")) {
		t.Errorf("no registry: %v, want an error naming it", err)
	}
}

// TestConcurrentFirstRegistrations: workers that start together register a new
// schema at once, under one subject (a trial's producers; Apicurio answers all but
// the first creation with 409 Conflict) or under a subject each (tests and trials
// of one schema; Apicurio 2.4.2's storage deadlocks on the new content until its
// lock timeout, hack/registry/registry.sh): every one gets the schema's one id
// (one content, one id, in whichever subject).
func TestConcurrentFirstRegistrations(t *testing.T) {
	url := registrytest.URL(t)
	for round := range 6 {
		shared := round%2 == 0
		// A new subject and new content every round, in every run.
		base := fmt.Sprintf("%s-%d", registrytest.Topic(t), round)
		s := registry.Schema{Type: registry.Avro, Text: fmt.Sprintf(`{"type":"record","name":"C%d","namespace":"io.serdebench.test","fields":[{"name":"a","type":"long"}]}`, time.Now().UnixNano())}
		const workers = 8
		ids := make([]int, workers)
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for i := range workers {
			c, err := registry.New(t.Context(), url)
			if err != nil {
				t.Fatal(err)
			}
			subject := base + "-value"
			if !shared {
				subject = fmt.Sprintf("%s-%d-value", base, i)
			}
			wg.Go(func() { ids[i], errs[i] = c.ID(subject, s) })
		}
		wg.Wait()
		for i := range workers {
			if errs[i] != nil || ids[i] != ids[0] {
				t.Fatalf("round %d (one subject: %v), worker %d: id %d (%v); worker 0's %d", round, shared, i, ids[i], errs[i], ids[0])
			}
		}
	}
}

// TestWire: headers round-trip; the first message's index path is the single
// byte 0 and others a count then the indexes (the Confluent serializers'
// encoding); a value without the magic byte or with a cut header is refused.
func TestWire(t *testing.T) {
	for _, path := range [][]int{{0}, {1}, {0, 2}, {3, 1, 4}} {
		idx := registry.MessageIndexes(path)
		if len(path) == 1 && path[0] == 0 && !bytes.Equal(idx, []byte{0}) {
			t.Errorf("[0] encodes as %v, want [0]", idx)
		}
		b := registry.AppendHeader([]byte("x"), 258, idx)
		b = append(b, "value"...)
		id, gotIdx, rest, err := registry.ParseHeader(b[1:], true)
		if err != nil || id != 258 || !bytes.Equal(gotIdx, idx) || string(rest) != "value" {
			t.Errorf("path %v: id %d, indexes %v, rest %q, err %v", path, id, gotIdx, rest, err)
		}
	}
	// [0] either way (the short form or a count of one), others exactly.
	for _, c := range []struct {
		enc  []byte
		path []int
		same bool
	}{{[]byte{0}, []int{0}, true}, {[]byte{2, 0}, []int{0}, true}, {[]byte{2, 2}, []int{1}, true}, {[]byte{4, 0, 4}, []int{0, 2}, true},
		{[]byte{0}, []int{1}, false}, {[]byte{2, 2}, []int{0}, false}, {[]byte{4, 0, 4}, []int{0, 2, 1}, false}, {[]byte{4, 0}, []int{0, 0}, false}} {
		if got := registry.SameIndexes(c.enc, c.path); got != c.same {
			t.Errorf("SameIndexes(%v, %v) = %v", c.enc, c.path, got)
		}
	}
	if !bytes.Equal(registry.MessageIndexes([]int{1}), []byte{2, 2}) {
		t.Errorf("[1] encodes as %v, want zigzag [2 2]", registry.MessageIndexes([]int{1}))
	}
	b := registry.AppendHeader(nil, 7, nil)
	if !bytes.Equal(b, []byte{0, 0, 0, 0, 7}) {
		t.Errorf("header %v", b)
	}
	for _, bad := range [][]byte{nil, {0, 0, 0}, {1, 0, 0, 0, 7, 'x'}, {0, 0, 0, 0, 7, 0x80}} {
		if _, _, _, err := registry.ParseHeader(bad, true); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
