package producer

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/trial"
)

// javaBufferMemory is the Java client's buffer.memory default, franz-go's bound on
// buffered bytes here: both block the sender when it is full.
const javaBufferMemory = 32 << 20

// javaDeliveryTimeout is the Java client's delivery.timeout.ms default.
const javaDeliveryTimeout = 2 * time.Minute

// FranzOptions maps a trial's producer settings onto franz-go, with the same sizing
// rules as SaramaConfig (docs/producer-settings.md). It also returns the settings by
// franz-go's names, for the result.
func FranzOptions(s trial.Settings, maxValueBytes, topicMaxBytes int) ([]kgo.Opt, map[string]string, error) {
	if topicMaxBytes <= 0 {
		topicMaxBytes = DefaultMaxMessageBytes
	}
	eff := map[string]string{"client": "franz-go"}
	// The worker chooses partitions itself (partitioner.go), as with sarama.
	opts := []kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MaxBufferedBytes(javaBufferMemory),
		kgo.MaxBufferedRecords(freeListSize)}

	switch s.Acks {
	case v1alpha1.AcksNone:
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()))
	case v1alpha1.AcksLeader:
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()))
	case v1alpha1.AcksAll:
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	default:
		return nil, nil, fmt.Errorf("acks %q: want 0, 1 or all", s.Acks)
	}

	switch s.Compression {
	case v1alpha1.CompressionNone:
		opts = append(opts, kgo.ProducerBatchCompression(kgo.NoCompression()))
	case v1alpha1.CompressionGzip:
		opts = append(opts, kgo.ProducerBatchCompression(kgo.GzipCompression()))
	case v1alpha1.CompressionSnappy:
		opts = append(opts, kgo.ProducerBatchCompression(kgo.SnappyCompression()))
	case v1alpha1.CompressionLZ4:
		opts = append(opts, kgo.ProducerBatchCompression(kgo.Lz4Compression()))
	case v1alpha1.CompressionZstd:
		opts = append(opts, kgo.ProducerBatchCompression(kgo.ZstdCompression()))
	default:
		return nil, nil, fmt.Errorf("compression %q: want none, gzip, snappy, lz4 or zstd", s.Compression)
	}

	if s.Idempotent {
		// franz-go's default: idempotent writes, at most 5 requests in flight per
		// broker (the protocol's limit), acks=all.
		eff["idempotent"] = "true"
		eff["MaxProduceRequestsInflightPerBroker"] = "5 (idempotent)"
	} else {
		opts = append(opts, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(int(s.MaxInFlight)))
		eff["MaxProduceRequestsInflightPerBroker"] = strconv.Itoa(int(s.MaxInFlight))
	}
	// Bounded like sarama's 3 retries, so a broker that stays away fails records
	// instead of holding them; idempotent writes ignore the retry count for sent
	// batches, so Java's delivery.timeout.ms (120 s) bounds those.
	opts = append(opts, kgo.RecordRetries(3), kgo.RecordDeliveryTimeout(javaDeliveryTimeout))
	eff["RecordRetries"] = "3"
	eff["RecordDeliveryTimeout"] = javaDeliveryTimeout.String()

	// A record larger than the batch cap fails in franz-go, so the cap is never
	// below the largest record (Java sends such a record in a batch of its own).
	floor := maxValueBytes + recordOverheadBytes
	var batchMax int
	var linger time.Duration
	switch s.Mode {
	case v1alpha1.ModeSingle:
		batchMax = floor
	case v1alpha1.ModeBatch:
		if s.BatchSizeBytes == 0 {
			// Java's batch.size=0: a batch holds one record; sent at once.
			batchMax = floor
		} else {
			batchMax = max(min(int(s.BatchSizeBytes), topicMaxBytes-batchOverheadBytes), floor)
			linger = time.Duration(s.LingerMs) * time.Millisecond
		}
	default:
		return nil, nil, fmt.Errorf("mode %q: want batch or single", s.Mode)
	}
	opts = append(opts, kgo.ProducerBatchMaxBytes(int32(batchMax)), kgo.ProducerLinger(linger))
	eff["ProducerBatchMaxBytes"] = strconv.Itoa(batchMax)
	eff["ProducerLinger"] = linger.String()
	return opts, eff, nil
}

// franzClient is twmb/franz-go's producer. Its promises run serially on one
// goroutine of the client's, which therefore owns the summary while the run lasts;
// mu and stopped end that ownership when a drain runs out of time.
type franzClient struct {
	r      *run
	cl     *kgo.Client
	drain  context.Context
	eff    map[string]string
	closed chan struct{}

	mu      sync.Mutex
	stopped bool
}

// newFranz connects a franz-go producer. drain bounds every buffered record's life
// (it ends DrainTimeout after the run is stopped).
func newFranz(ctx, drain context.Context, r *run, clientID string, maxValue, topicMax int) (*franzClient, error) {
	t := r.cfg.Trial
	opts, eff, err := FranzOptions(t.Settings, maxValue, topicMax)
	if err != nil {
		return nil, err
	}
	conn, err := r.cfg.Security.FranzOpts(r.cfg.Brokers, clientID,
		kafkaconn.Buffers{Send: int(t.Settings.SendBufferBytes), Receive: int(t.Settings.ReceiveBufferBytes)})
	if err != nil {
		return nil, err
	}
	cl, err := kafkaconn.NewFranz(ctx, r.cfg.Brokers, append(conn, opts...)...)
	if err != nil {
		return nil, err
	}
	return &franzClient{r: r, cl: cl, drain: drain, eff: eff, closed: make(chan struct{})}, nil
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

func (c *franzClient) close() {
	go func() {
		_ = c.cl.Flush(c.drain)
		close(c.closed)
	}()
}

func (c *franzClient) release() { c.cl.Close() }

func (c *franzClient) settings() map[string]string { return c.eff }
