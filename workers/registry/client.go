// Package registry is a worker's side of a schema registry: schema ids from a
// real registry through Confluent's Go client (the REST API that Confluent Schema
// Registry serves, and Apicurio Registry under /apis/ccompat/v7), cached as
// Confluent's serializers cache them, and the Confluent wire format that frames
// each value with its schema's id (wire.go).
package registry

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/rest"
)

// Schema types, as the registry names them.
const (
	Avro     = "AVRO"
	Protobuf = "PROTOBUF"
	JSON     = "JSON"
)

// Schema is what a codec registers: its type and its text (an Avro schema's JSON,
// a .proto file, a JSON Schema).
type Schema struct {
	Type string
	Text string
}

// requestTimeout bounds one request to the registry.
const requestTimeout = 10 * time.Second

// attempts bounds the tries of one request: one and the three retries of
// confluent-kafka-go's default (MaxRetries), of what it retries and 409 Conflict
// (retryable), each after a wait drawn as it draws them (backoff). Its own
// retries are off: confluent-kafka-go v2.11.1 sends a
// retried request's body from the buffer the first try drained, so a register
// retried after a 5xx arrives empty (Apicurio: "request is null"). Producers
// starting together register a new subject at once, and Apicurio answers all but
// the first with 409 Conflict or 500 (its in-memory storage's lock timeout,
// hack/registry/registry.sh): a later try finds the schema.
const attempts = 4

// retryWait is the client's RetriesWaitMs default: the first retry waits up to it,
// each next one up to twice as long.
const retryWait = time.Second

// backoff is the wait before retry i (from 0): "full jitter", uniform in
// [0, retryWait·2^i), as confluent-kafka-go draws it, so that workers refused
// together do not come back together.
func backoff(i int) time.Duration {
	return time.Duration(rand.Int64N(int64(retryWait) << i))
}

// try runs f until it succeeds, fails for good (retryable), attempts tries failed
// or ctx ends.
func try(ctx context.Context, f func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = f(); err == nil || i == attempts-1 || !retryable(err) {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (stopped before another try: %w)", err, ctx.Err())
		case <-time.After(backoff(i)):
		}
	}
	return err
}

// retryable says whether a failed request may succeed when tried again: an
// answer of 408, 409, 429 or 5xx (confluent-kafka-go's, and 409), or none (no
// connection, no answer in time, one that is not the registry's JSON). The
// registry's error codes lead with the HTTP status (40401: 404); Apicurio's 500
// has none (0), and is retried as a 5xx.
func retryable(err error) bool {
	var re *rest.Error
	if !errors.As(err, &re) || re.Code < 100 {
		return true
	}
	c := re.Code
	for c >= 1000 {
		c /= 100
	}
	return c == 408 || c == 409 || c == 429 || c/100 == 5
}

// Client is one worker's registry client, safe for concurrent use (a consumer's
// partitions share it). Like the Confluent serializers', its caches live as long
// as it does: a schema's id is asked for once, then read from memory. It counts
// every HTTP request it sends and the time they take.
type Client struct {
	ctx          context.Context
	url          string
	sr           schemaregistry.Client
	requests     atomic.Int64
	requestNanos atomic.Int64
}

// New returns a client of the registry at url (its Confluent-compatible API's
// base, e.g. http://registry:8080/apis/ccompat/v7 for Apicurio). Its requests and
// the waits between tries end with ctx.
func New(ctx context.Context, url string) (*Client, error) {
	c := &Client{ctx: ctx, url: url}
	conf := schemaregistry.NewConfig(url)
	conf.RequestTimeoutMs = int(requestTimeout.Milliseconds())
	conf.MaxRetries = 0 // try retries, with the body (attempts)
	conf.HTTPClient = &http.Client{Timeout: requestTimeout, Transport: counting{c: c, next: http.DefaultTransport}}
	sr, err := schemaregistry.NewClient(conf)
	if err != nil {
		return nil, fmt.Errorf("schema registry %s: %w", url, err)
	}
	c.sr = sr
	return c, nil
}

// Open is New for a worker that may run without a registry: "" is none (a nil
// client).
func Open(ctx context.Context, url string) (*Client, error) {
	if url == "" {
		return nil, nil
	}
	return New(ctx, url)
}

// ID returns the id of schema s under subject, registering it if the registry
// does not have it (auto.register.schemas, the Confluent serializers' default): a
// request the first time, the cache after.
func (c *Client) ID(subject string, s Schema) (int, error) {
	var id int
	err := try(c.ctx, func() (err error) {
		id, err = c.sr.Register(subject, schemaregistry.SchemaInfo{Schema: s.Text, SchemaType: s.Type}, false)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("schema registry %s: register %s schema under %s: %w", c.url, s.Type, subject, err)
	}
	return id, nil
}

// Registered returns the id schema s has under subject without registering it
// (a deserializer's check of what it expects): a request the first time, the
// cache after.
func (c *Client) Registered(subject string, s Schema) (int, error) {
	var id int
	err := try(c.ctx, func() (err error) {
		id, err = c.sr.GetID(subject, schemaregistry.SchemaInfo{Schema: s.Text, SchemaType: s.Type}, false)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("schema registry %s: look up %s schema under %s: %w", c.url, s.Type, subject, err)
	}
	return id, nil
}

// Writer returns the schema a value was written with, by its id, as a
// deserializer looks it up for every value (with its subject, as Confluent's
// do): a request the first time, the cache after.
func (c *Client) Writer(subject string, id int) (Schema, error) {
	var info schemaregistry.SchemaInfo
	err := try(c.ctx, func() (err error) {
		info, err = c.sr.GetBySubjectAndID(subject, id)
		return err
	})
	if err != nil {
		return Schema{}, fmt.Errorf("schema registry %s: schema id %d: %w", c.url, id, err)
	}
	t := info.SchemaType
	if t == "" {
		t = Avro // the registry's default type, which it leaves out
	}
	return Schema{Type: t, Text: info.Schema}, nil
}

// Requests returns the HTTP requests the client has sent and their total time.
func (c *Client) Requests() (n int64, total time.Duration) {
	return c.requests.Load(), time.Duration(c.requestNanos.Load())
}

// counting is the client's transport: it counts requests and their time, each
// from sending to the response's headers.
type counting struct {
	c    *Client
	next http.RoundTripper
}

func (t counting) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req.WithContext(t.c.ctx))
	t.c.requests.Add(1)
	t.c.requestNanos.Add(time.Since(start).Nanoseconds())
	return resp, err
}
