package producer

import (
	"context"
	"fmt"
	"time"

	"github.com/serdebench/serdebench/workers/summary"
)

// transactor is a client's transactional producer. The sender calls it between
// records, never while a record is being handed over.
type transactor interface {
	// begin starts a transaction.
	begin() error
	// end commits the open transaction, or aborts it (commit false, or a commit
	// the coordinator refused as abortable), once every record of it is
	// acknowledged or failed. committed says which happened; an error is one
	// the producer cannot go on after (fenced, fatal, or the context ended).
	end(ctx context.Context, commit bool) (committed bool, why string, err error)
}

// transactionalID is the producer's transactional id: one per producer and trial,
// the same in every attempt, so an attempt fences a stale one's producer.
func transactionalID(clientID string) string { return clientID + "-txn" }

// txn is a transactional producer's bookkeeping, the sender's alone: which
// records the open transaction holds, and where each ended. A record counts as
// acknowledged (Summary.Acked) only once its transaction has committed.
type txn struct {
	tr transactor
	// every ends a transaction after this many records, span after this long.
	every int64
	span  time.Duration
	// open, begun and n: a transaction is open, since its first record's
	// intended send time, with how many records; recs are their partitions and
	// sequence numbers.
	open  bool
	begun time.Time
	n     int64
	recs  []txnRecord
	// measured is how many of them are measured records.
	measured int64
	// committed and aborted are the records' outcomes, by partition.
	committed, aborted []summary.SeqSet
	// failures counts failed sends so far (the acknowledgement goroutine's); the
	// sender compares it at each end, after the transaction's outcomes are in.
	seenFailures int64
	stats        summary.TransactionStats
	commit       *summary.Histogram
}

type txnRecord struct {
	partition int32
	seq       uint64
}

// due is whether the open transaction ends before a record due at intended. Time
// is the schedule's: in an open loop a transaction spans records whose intended
// times lie within span of its first's, so a producer catching up after a stall
// does not pack its backlog into one transaction.
func (t *txn) due(intended time.Time) bool {
	if !t.open || t.n == 0 {
		return false
	}
	if t.every > 0 {
		return t.n >= t.every
	}
	return intended.Sub(t.begun) >= t.span
}

// beginTxn opens a transaction if none is, for a record due at intended.
func (r *run) beginTxn(intended time.Time) error {
	t := r.txn
	if t.open {
		return nil
	}
	if err := t.tr.begin(); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	t.open, t.begun, t.n, t.recs, t.measured = true, intended, 0, t.recs[:0], 0
	return nil
}

// added notes a record handed over in the open transaction.
func (r *run) added(m *message) {
	t := r.txn
	t.n++
	t.recs = append(t.recs, txnRecord{m.partition, m.seq})
	if m.measured {
		t.measured++
	}
}

// endTxn ends the open transaction: it waits until every record of it is
// acknowledged or failed, commits it unless a send failed (then aborts it), and
// files its records as committed or aborted. markers says it holds the end
// records, which are not measured. The error is one the producer cannot go on
// after.
func (r *run) endTxn(ctx context.Context, markers bool) (committed bool, err error) {
	t := r.txn
	if !t.open {
		return true, nil
	}
	start := time.Now()
	if !r.waitIdle(ctx) {
		return false, fmt.Errorf("end transaction: %d records still unacknowledged: %w", r.pending.Load(), context.Cause(ctx))
	}
	// Every outcome is in (waitIdle), so the count is the transaction's.
	failures := r.failures.Load()
	failed := failures - t.seenFailures
	t.seenFailures = failures
	committed, why, err := t.tr.end(ctx, failed == 0)
	took := time.Since(start)
	t.open = false
	if failed > 0 {
		why = fmt.Sprintf("%d of its %d sends failed", failed, t.n)
	}
	if committed {
		t.stats.Committed++
		for _, rec := range t.recs {
			t.committed[rec.partition].Add(int64(rec.seq))
		}
		// Warmup excluded: only transactions of measured records alone count.
		if !markers && t.measured > 0 && t.measured == t.n {
			t.stats.Measured++
			t.stats.MeasuredRecords += t.n
			t.commit.Record(took.Microseconds())
		}
	} else {
		t.stats.Aborted++
		if t.stats.FirstAbort == "" {
			t.stats.FirstAbort = why
		}
		for _, rec := range t.recs {
			t.aborted[rec.partition].Add(int64(rec.seq))
		}
	}
	if err != nil {
		return committed, fmt.Errorf("end transaction: %w", err)
	}
	return committed, nil
}

// retryPause waits before a transactional call is retried; false if ctx ended
// first.
func retryPause(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(100 * time.Millisecond):
		return true
	}
}
