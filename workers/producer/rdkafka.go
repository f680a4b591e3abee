//go:build cgo

package producer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/clientstats"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/kafkaconn/rdkafka"
	"github.com/serdebench/serdebench/workers/summary"
)

// RdkafkaConfig applies a trial's producer plan (NewPlan) to librdkafka. It also
// returns the settings by librdkafka's names, for the result.
// txnID is the producer's transactional id (used only with transactions).
func RdkafkaConfig(s trial.Settings, txnID string, maxValueBytes, topicMaxBytes int) (kafka.ConfigMap, map[string]string, error) {
	p, err := NewPlan(s, maxValueBytes, topicMaxBytes)
	if err != nil {
		return nil, nil, err
	}
	cm := kafka.ConfigMap{
		// acks and compression.type take the settings' own names.
		"acks":             string(p.Acks),
		"compression.type": string(p.Compression),
		// A record larger than batch.size still goes, in a batch of its own (as
		// Java's); a request may carry one full batch per partition.
		"batch.size":        p.BatchMaxBytes,
		"message.max.bytes": max(p.BatchMaxBytes+batchOverheadBytes, DefaultMaxMessageBytes),
		"linger.ms":         strconv.FormatFloat(float64(p.Linger)/float64(time.Millisecond), 'f', -1, 64),
		// Java's buffer.memory (32 MiB) and the worker's free list bound what is
		// buffered; a full buffer makes the sender wait, as Java's send blocks.
		"queue.buffering.max.kbytes":   javaBufferMemory >> 10,
		"queue.buffering.max.messages": freeListSize,
		// Bounded like sarama's 3 retries; Java's delivery.timeout.ms (120 s)
		// bounds a record's life.
		"message.send.max.retries": 3,
		"message.timeout.ms":       int(javaDeliveryTimeout.Milliseconds()),
		"go.delivery.reports":      true,
		// Client internals (clientstats.Rdkafka) come from librdkafka's statistics.
		"statistics.interval.ms": int(clientstats.RdkafkaStatsInterval.Milliseconds()),
	}
	// librdkafka also caps a batch's records (batch.num.messages, 10000 by
	// default), which Java does not: at its maximum only bytes cap it.
	cm["batch.num.messages"] = 1000000
	if p.OnePerBatch {
		cm["batch.num.messages"] = 1
	}
	// The worker reads only a report's outcome and opaque: no copies of the
	// record's key, value and headers into Go on the acknowledgement path, and
	// small channels the Go collector does not have to scan.
	cm["go.delivery.report.fields"] = "none"
	cm["go.events.channel.size"] = 1000
	cm["go.produce.channel.size"] = 1
	// Idempotent (and transactional) producers allow at most 5 (the planner
	// refuses more for transactions).
	cm["max.in.flight.requests.per.connection"] = p.MaxInFlight
	if p.Idempotent {
		cm["enable.idempotence"] = true
	}
	if p.Transactional {
		cm["transactional.id"] = txnID
		cm["transaction.timeout.ms"] = int(p.TransactionTimeout.Milliseconds())
		// librdkafka refuses a record life longer than a transaction's.
		cm["message.timeout.ms"] = int(min(javaDeliveryTimeout, p.TransactionTimeout).Milliseconds())
	}
	eff := map[string]string{"client": "librdkafka", "librdkafka": rdkafkaVersion()}
	for _, k := range []string{"batch.size", "linger.ms", "batch.num.messages", "max.in.flight.requests.per.connection",
		"enable.idempotence", "message.send.max.retries", "message.timeout.ms", "queue.buffering.max.kbytes",
		"transactional.id", "transaction.timeout.ms"} {
		if v, ok := cm[k]; ok {
			eff[k] = fmt.Sprint(v)
		}
	}
	return cm, eff, nil
}

// rdkafkaVersion is the linked librdkafka's version.
func rdkafkaVersion() string {
	_, v := kafka.LibraryVersion()
	return v
}

// rdkafkaClient is confluent-kafka-go's producer (librdkafka). Delivery reports
// arrive on one channel, read by acks.
type rdkafkaClient struct {
	r          *run
	p          *kafka.Producer
	drain      context.Context
	deliveries chan kafka.Event
	eff        map[string]string
	internal   *clientstats.Rdkafka
	// flushed closes once close's flush is done (every report is in
	// deliveries), closed once its goroutine has returned.
	flushed, closed chan struct{}
	closeCalled     atomic.Bool
}

// newRdkafka connects a librdkafka producer. drain bounds the flush once the run
// is stopped.
func newRdkafka(drain context.Context, r *run, clientID string, maxValue, topicMax int) (client, error) {
	t := r.cfg.Trial
	cm, eff, err := RdkafkaConfig(t.Settings, transactionalID(r.cfg.Topic, r.cfg.ID), maxValue, topicMax)
	if err != nil {
		return nil, err
	}
	conn := rdkafka.Config(r.cfg.Security, r.cfg.Brokers, clientID,
		kafkaconn.Buffers{Send: int(t.Settings.SendBufferBytes), Receive: int(t.Settings.ReceiveBufferBytes)})
	for k, v := range conn {
		cm[k] = v
	}
	p, err := kafka.NewProducer(&cm)
	if err != nil {
		return nil, fmt.Errorf("create librdkafka producer: %w", err)
	}
	if err := rdkafka.Reachable(p, r.cfg.Brokers, int(kafkaconn.DialTimeout.Milliseconds())*3); err != nil {
		p.Close()
		return nil, err
	}
	c := &rdkafkaClient{r: r, p: p, drain: drain, deliveries: make(chan kafka.Event, freeListSize), eff: eff,
		internal: clientstats.NewRdkafka(), flushed: make(chan struct{}), closed: make(chan struct{})}
	if r.cfg.Metrics != nil {
		r.cfg.Metrics.WatchClient(c.internal.Snapshot)
	}
	go c.events()
	if _, ok := cm["transactional.id"]; ok {
		ictx, cancel := context.WithTimeout(drain, kafkaconn.DialTimeout*3)
		defer cancel()
		if err := p.InitTransactions(ictx); err != nil {
			p.Close()
			return nil, fmt.Errorf("librdkafka: init transactions: %w", err)
		}
	}
	return c, nil
}

// events reads the producer's own channel until Close closes it: statistics,
// and errors, which librdkafka retries itself (a record's own failure comes with
// its delivery report).
func (c *rdkafkaClient) events() {
	for e := range c.p.Events() {
		switch ev := e.(type) {
		case *kafka.Stats:
			c.internal.Update(ev.String())
		case kafka.Error:
			c.r.cfg.Log.Debug("librdkafka", "err", ev)
		}
	}
}

func (c *rdkafkaClient) stats() *summary.ClientStats { return c.internal.Stats() }

// rdkafkaForm is a message's librdkafka form, kept with the message (message.rdk)
// so that sending allocates neither it nor its headers: Produce copies both into
// C before it returns.
type rdkafkaForm struct {
	msg  kafka.Message
	hdrs [6]kafka.Header
}

// copiesValue: Produce copies the value into librdkafka's own message
// (RD_KAFKA_MSG_F_COPY, which confluent-kafka-go always sets).
func (c *rdkafkaClient) copiesValue() bool { return true }

func (c *rdkafkaClient) send(ctx context.Context, m *message) bool {
	f, _ := m.rdk.(*rdkafkaForm)
	if f == nil {
		f = new(rdkafkaForm)
		m.rdk = f
	}
	for i := range m.nh {
		f.hdrs[i] = kafka.Header{Key: m.keys[i], Value: m.val(i)}
	}
	f.msg = kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &c.r.cfg.Topic, Partition: m.partition}, Opaque: m, Headers: f.hdrs[:m.nh]}
	if !m.marker {
		f.msg.Value = m.value.b
	}
	msg := &f.msg
	for {
		err := c.p.Produce(msg, c.deliveries)
		if err == nil {
			return true
		}
		var kerr kafka.Error
		if !errors.As(err, &kerr) || kerr.Code() != kafka.ErrQueueFull {
			// Refused outright (a record too large, say): an outcome like any other,
			// reported through acks like the rest (one goroutine at a time).
			msg.TopicPartition.Error = err
			select {
			case c.deliveries <- msg:
				return true
			case <-ctx.Done():
				return false
			}
		}
		// The buffer is full: wait, as Java's send blocks, bounded by ctx.
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Millisecond):
		}
	}
}

func (c *rdkafkaClient) acks(stop <-chan struct{}) {
	flushed := c.flushed
	var poll <-chan time.Time
	for {
		select {
		case e := <-c.deliveries:
			now := time.Now()
			if msg, ok := e.(*kafka.Message); ok {
				c.r.acknowledge(msg.Opaque.(*message), msg.TopicPartition.Error, now)
			}
		case <-flushed:
			// Every report has left librdkafka; the last may still be on its way
			// into the channel.
			flushed, poll = nil, time.Tick(time.Millisecond)
		case <-poll:
			if c.r.pending.Load() == 0 {
				return
			}
		case <-stop:
			return
		}
	}
}

func (c *rdkafkaClient) close() {
	c.closeCalled.Store(true)
	go func() {
		defer close(c.closed)
		for c.p.Flush(100) > 0 {
			if c.drain.Err() != nil {
				return // release purges what is left
			}
		}
		// The statistics' windows count a batch at their next emission.
		c.internal.Next(3 * clientstats.RdkafkaStatsInterval)
		close(c.flushed)
	}()
}

// release waits for close's goroutine (it ends with the flush, or at most one
// Flush step after drain does), drops what a drain that ran out left behind, and
// closes the producer: nothing of the client's runs after.
func (c *rdkafkaClient) release() {
	if c.closeCalled.Load() {
		<-c.closed
	}
	if c.drain.Err() != nil {
		_ = c.p.Purge(kafka.PurgeQueue | kafka.PurgeInFlight | kafka.PurgeNonBlocking)
	}
	c.internal.Close()
	c.p.Close()
}

func (c *rdkafkaClient) settings() map[string]string { return c.eff }

func (c *rdkafkaClient) begin() error { return c.p.BeginTransaction() }

// end commits or aborts, as librdkafka's transactional API prescribes: a
// retriable error is retried, one that requires an abort aborts (the commit was
// refused: aborted), a fatal one ends the producer (its commit may have reached
// the coordinator: in doubt). CommitTransaction flushes first (nothing is left:
// the sender waited for every outcome). librdkafka reads only a context's
// deadline, not its cancellation: each call gets one.
func (c *rdkafkaClient) end(ctx context.Context, commit bool) (outcome, string, error) {
	why, out := "a send failed in it", aborted
	for commit {
		cctx, cancel := txnCallContext(ctx)
		err := c.p.CommitTransaction(cctx)
		cancel()
		if err == nil {
			return committed, "", nil
		}
		var ke kafka.Error
		switch {
		case errors.As(err, &ke) && ke.IsRetriable() && retryPause(ctx):
			continue
		case errors.As(err, &ke) && ke.TxnRequiresAbort():
			why, commit = "commit failed: "+err.Error(), false
		default:
			return inDoubt, "commit failed: " + err.Error(), fmt.Errorf("librdkafka: commit transaction: %w", err)
		}
	}
	for {
		cctx, cancel := txnCallContext(ctx)
		err := c.p.AbortTransaction(cctx)
		cancel()
		if err == nil {
			return out, why, nil
		}
		var ke kafka.Error
		if !errors.As(err, &ke) || !ke.IsRetriable() || !retryPause(ctx) {
			return out, why, fmt.Errorf("librdkafka: abort transaction (%s): %w", why, err)
		}
	}
}

// txnCallTimeout bounds one of librdkafka's transactional calls, which read a
// context's deadline but not its cancellation.
const txnCallTimeout = 30 * time.Second

// txnCallContext is ctx with a deadline at most txnCallTimeout away.
func txnCallContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, txnCallTimeout)
}
