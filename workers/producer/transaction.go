package producer

import (
	"context"
	"fmt"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/summary"
)

// outcome is how a transaction ended.
type outcome int

const (
	// committed: the coordinator confirmed the commit.
	committed outcome = iota
	// aborted: it was aborted, or refused before any commit was sent.
	aborted
	// inDoubt: a commit was sent and its answer never came (a broker killed
	// mid-EndTxn): the coordinator may have committed it. Its records are
	// neither delivered nor lost until a consumer shows which.
	inDoubt
)

// transactor is a client's transactional producer. The sender calls it between
// records, never while a record is being handed over.
type transactor interface {
	// begin starts a transaction.
	begin() error
	// end commits the open transaction, or aborts it (commit false), once every
	// record of it is acknowledged or failed; a commit that fails is aborted as
	// the library prescribes. The outcome says which happened; an error is one
	// the producer cannot go on after (fenced, fatal, or the context ended).
	end(ctx context.Context, commit bool) (outcome, string, error)
}

// transactionalID is a producer's transactional id: unique to the trial's
// attempt (its topic names the experiment, its UID and the attempt), so that no
// other experiment, schedule run or local run fences it.
func transactionalID(topic string, producer int) string {
	return fmt.Sprintf("serdebench-%s-p%d", topic, producer)
}

// transactionTimeout bounds a transaction at the coordinator: Java's default
// (60 s), or twice the longest a transaction of these settings is expected to
// stay open, and at most the broker's default transaction.max.timeout.ms (15 min).
func transactionTimeout(tx trial.Transactions, recordsPerSecond int64) time.Duration {
	span := time.Duration(tx.TransactionMillis) * time.Millisecond
	if tx.RecordsPerTransaction > 0 && recordsPerSecond > 0 {
		span = time.Duration(float64(tx.RecordsPerTransaction) / float64(recordsPerSecond) * float64(time.Second))
	}
	return min(max(javaTransactionTimeout, 2*span+10*time.Second), maxTransactionTimeout)
}

// maxTransactionTimeout is the broker's default transaction.max.timeout.ms.
const maxTransactionTimeout = 15 * time.Minute

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
	// committed, aborted and doubtful are the records' outcomes, by partition.
	committed, aborted, doubtful []summary.SeqSet
	// failures counts failed sends so far (the acknowledgement goroutine's); the
	// sender compares it at each end, after the transaction's outcomes are in.
	seenFailures int64
	stats        summary.TransactionStats
	commit       *summary.Histogram
}

// txnRecord is a record of the open transaction.
type txnRecord struct {
	partition int32
	seq       uint64
	measured  bool
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
func (r *run) added(rec txnRecord) {
	t := r.txn
	t.n++
	t.recs = append(t.recs, rec)
	if rec.measured {
		t.measured++
	}
}

// endTxn ends the open transaction: it waits until every record of it is
// acknowledged or failed, commits it unless a send failed (then aborts it), and
// files its records as committed, aborted or in doubt. markers says it holds the
// end records, which are not measured. The error is one the producer cannot go
// on after.
func (r *run) endTxn(ctx context.Context, markers bool) (outcome, string, error) {
	t := r.txn
	if !t.open {
		return committed, "", nil
	}
	start := time.Now()
	if !r.waitIdle(ctx) {
		return aborted, "", fmt.Errorf("end transaction: %d records still unacknowledged: %w", r.pending.Load(), context.Cause(ctx))
	}
	// Every outcome is in (waitIdle), so the count is the transaction's.
	failures := r.failures.Load()
	failed := failures - t.seenFailures
	t.seenFailures = failures
	out, why, err := t.tr.end(ctx, failed == 0)
	took := time.Since(start)
	t.open = false
	switch {
	case failed > 0 && markers:
		why = fmt.Sprintf("%d of its end records failed", failed)
	case failed > 0:
		why = fmt.Sprintf("%d of its %d sends failed", failed, t.n)
	}
	switch out {
	case committed:
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
	case aborted:
		t.stats.Aborted++
		if t.stats.FirstAbort == "" {
			t.stats.FirstAbort = why
		}
		for _, rec := range t.recs {
			t.aborted[rec.partition].Add(int64(rec.seq))
		}
	case inDoubt:
		t.stats.InDoubt++
		if t.stats.FirstInDoubt == "" {
			t.stats.FirstInDoubt = why
		}
		for _, rec := range t.recs {
			t.doubtful[rec.partition].Add(int64(rec.seq))
		}
	}
	if err != nil {
		return out, why, fmt.Errorf("end transaction: %w", err)
	}
	return out, why, nil
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
