package producer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/clientstats"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/kafkaconn/franz"
	"github.com/serdebench/serdebench/workers/summary"
)

// javaBufferMemory is the Java client's buffer.memory default, franz-go's bound on
// buffered bytes here: both block the sender when it is full.
const javaBufferMemory = 32 << 20

// javaDeliveryTimeout is the Java client's delivery.timeout.ms default.
const javaDeliveryTimeout = 2 * time.Minute

// FranzOptions applies a trial's producer plan (NewPlan) to franz-go. It also
// returns the settings by franz-go's names, for the result.
// txnID is the producer's transactional id (used only with transactions).
func FranzOptions(s trial.Settings, txnID string, maxValueBytes, topicMaxBytes int) ([]kgo.Opt, map[string]string, error) {
	p, err := NewPlan(s, maxValueBytes, topicMaxBytes)
	if err != nil {
		return nil, nil, err
	}
	eff := map[string]string{"client": "franz-go"}
	// The worker chooses partitions itself (partitioner.go), as with sarama.
	opts := []kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MaxBufferedBytes(javaBufferMemory),
		kgo.MaxBufferedRecords(freeListSize),
		kgo.RequiredAcks(franzAcks[p.Acks]()), kgo.ProducerBatchCompression(franzCompression[p.Compression]())}
	if p.Idempotent {
		// franz-go's default: idempotent writes, at most 5 requests in flight per
		// broker (the protocol's limit), acks=all.
		eff["idempotent"] = "true"
		eff["MaxProduceRequestsInflightPerBroker"] = "5 (idempotent)"
	} else {
		opts = append(opts, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(p.MaxInFlight))
		eff["MaxProduceRequestsInflightPerBroker"] = strconv.Itoa(p.MaxInFlight)
	}
	// Bounded like sarama's 3 retries, so a broker that stays away fails records
	// instead of holding them; idempotent writes ignore the retry count for sent
	// batches, so Java's delivery.timeout.ms (120 s) bounds those.
	opts = append(opts, kgo.RecordRetries(3), kgo.RecordDeliveryTimeout(javaDeliveryTimeout))
	eff["RecordRetries"] = "3"
	eff["RecordDeliveryTimeout"] = javaDeliveryTimeout.String()
	// One record per batch is a batch capped at the largest record, sent at once.
	opts = append(opts, kgo.ProducerBatchMaxBytes(int32(p.BatchMaxBytes)), kgo.ProducerLinger(p.Linger))
	eff["ProducerBatchMaxBytes"] = strconv.Itoa(p.BatchMaxBytes)
	eff["ProducerLinger"] = p.Linger.String()
	if p.Transactional {
		opts = append(opts, kgo.TransactionalID(txnID), kgo.TransactionTimeout(p.TransactionTimeout))
		eff["TransactionalID"] = txnID
		eff["TransactionTimeout"] = p.TransactionTimeout.String()
	}
	return opts, eff, nil
}

// franzAcks and franzCompression are franz-go's values of the settings' enums.
var (
	franzAcks = map[trial.Acks]func() kgo.Acks{
		trial.AcksNone: kgo.NoAck, trial.AcksLeader: kgo.LeaderAck, trial.AcksAll: kgo.AllISRAcks,
	}
	franzCompression = map[trial.Compression]func() kgo.CompressionCodec{
		trial.CompressionNone: kgo.NoCompression, trial.CompressionGzip: kgo.GzipCompression,
		trial.CompressionSnappy: kgo.SnappyCompression, trial.CompressionLZ4: kgo.Lz4Compression,
		trial.CompressionZstd: kgo.ZstdCompression,
	}
)

// franzClient is twmb/franz-go's producer. Its promises run serially on one
// goroutine of the client's, which therefore owns the summary while the run lasts;
// mu and stopped end that ownership when a drain runs out of time.
type franzClient struct {
	r      *run
	cl     *kgo.Client
	drain  context.Context
	eff    map[string]string
	closed chan struct{}
	hooks  *clientstats.Franz
	// acked counts the records the broker acknowledged (end markers included).
	acked atomic.Int64

	mu      sync.Mutex
	stopped bool
}

// newFranz connects a franz-go producer. drain bounds every buffered record's life
// (it ends DrainTimeout after the run is stopped).
func newFranz(ctx, drain context.Context, r *run, clientID string, maxValue, topicMax int) (*franzClient, error) {
	t := r.cfg.Trial
	opts, eff, err := FranzOptions(t.Settings, transactionalID(r.cfg.Topic, r.cfg.ID), maxValue, topicMax)
	if err != nil {
		return nil, err
	}
	conn, err := franz.Opts(r.cfg.Security, r.cfg.Brokers, clientID,
		kafkaconn.Buffers{Send: int(t.Settings.SendBufferBytes), Receive: int(t.Settings.ReceiveBufferBytes)})
	if err != nil {
		return nil, err
	}
	hooks := clientstats.NewFranz()
	if r.cfg.Metrics != nil {
		r.cfg.Metrics.WatchClient(hooks.Snapshot)
	}
	cl, err := franz.New(ctx, r.cfg.Brokers, append(append(conn, opts...), kgo.WithHooks(hooks), franz.Logger(r.cfg.Log))...)
	if err != nil {
		return nil, err
	}
	hooks.Watch(cl)
	return &franzClient{r: r, cl: cl, drain: drain, eff: eff, closed: make(chan struct{}), hooks: hooks}, nil
}

func (c *franzClient) stats() *summary.ClientStats {
	// Every acknowledged record's batch, counted by a hook that may still run.
	c.hooks.Settle(c.acked.Load(), 2*time.Second)
	return c.hooks.Stats()
}

func (c *franzClient) send(ctx context.Context, m *message) bool {
	if ctx.Err() != nil {
		return false
	}
	// Blocks while the client holds javaBufferMemory, as Java's send does; the
	// drain context bounds that wait.
	c.cl.Produce(c.drain, m.franzForm(c.drain, c.r.cfg.Topic), c.promise)
	return true
}

func (c *franzClient) promise(rec *kgo.Record, err error) {
	now := time.Now()
	if err == nil {
		c.acked.Add(1)
	}
	m := rec.Context.(*recordContext).m
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped {
		c.r.acknowledge(m, err, now)
	}
}

func (c *franzClient) acks(stop <-chan struct{}) {
	select {
	case <-c.closed:
	case <-stop:
	}
	// No outcome after this: the summary is read next. (Normally every outcome is
	// in by now; after a drain ran out, release fails the rest unrecorded.)
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
}

// copiesValue: franz-go holds the record's value until its batch is written.
func (c *franzClient) copiesValue() bool { return false }

func (c *franzClient) close() {
	go func() {
		_ = c.cl.Flush(c.drain)
		close(c.closed)
	}()
}

func (c *franzClient) release() {
	c.cl.Close()
	c.hooks.Close()
}

func (c *franzClient) settings() map[string]string { return c.eff }

func (c *franzClient) begin() error { return c.cl.BeginTransaction() }

// end flushes (nothing is left by now: the sender waited for every outcome) and
// ends the transaction. A commit kgo refuses, or whose outcome it cannot know, is
// retried as an abort, as EndTransaction's documentation prescribes; only a
// commit refused before it was sent (OperationNotAttempted, TransactionAbortable)
// is known aborted, any other failed commit may have committed at the broker.
func (c *franzClient) end(ctx context.Context, commit bool) (outcome, string, error) {
	why, out := "a send failed in it", aborted
	if commit {
		err := c.cl.Flush(ctx)
		if err == nil {
			if err = c.cl.EndTransaction(ctx, kgo.TryCommit); err == nil {
				return committed, "", nil
			}
			if !errors.Is(err, kerr.OperationNotAttempted) && !errors.Is(err, kerr.TransactionAbortable) {
				out = inDoubt
			}
		}
		why = "commit failed: " + err.Error()
	} else if err := c.cl.AbortBufferedRecords(ctx); err != nil {
		return aborted, why, fmt.Errorf("abort buffered records: %w", err)
	}
	if err := c.cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
		return out, why, fmt.Errorf("abort transaction (%s): %w", why, err)
	}
	return out, why, nil
}
