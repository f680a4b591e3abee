package summary

import "fmt"

// CommitMicros is a transactional producer's commit time, in microseconds: from
// asking to commit (the transaction's last record handed to the client) to the
// coordinator's answer. It includes flushing the transaction's records, as Java's
// commitTransaction does; the sender waits for it before the next transaction.
const CommitMicros = "commit_us"

// TransactionStats are one transactional producer's transactions (nil: not
// transactional).
type TransactionStats struct {
	// Committed and Aborted count the transactions that ended each way, the
	// one carrying the end records included.
	Committed int64 `json:"committed"`
	Aborted   int64 `json:"aborted"`
	// Measured are the committed transactions that ended in the measured window,
	// that of the end records excluded: their commit times are CommitMicros.
	// MeasuredRecords are their records.
	Measured        int64 `json:"measured"`
	MeasuredRecords int64 `json:"measuredRecords"`
	// FirstAbort says why the first aborted transaction aborted.
	FirstAbort string `json:"firstAbort,omitempty"`
	// InDoubt counts transactions whose commit was sent and never answered
	// (the coordinator may have committed them); FirstInDoubt says why.
	InDoubt      int64  `json:"inDoubt,omitempty"`
	FirstInDoubt string `json:"firstInDoubt,omitempty"`
}

// Transactions are a trial's transactions, all producers (nil: not
// transactional).
type Transactions struct {
	// Committed and Aborted count transactions, all producers.
	Committed int64 `json:"committed"`
	Aborted   int64 `json:"aborted"`
	// PerSecond is transactions committed in the measured window per second of
	// it, all producers.
	PerSecond float64 `json:"perSecond"`
	// RecordsPerTransaction is those transactions' mean record count.
	RecordsPerTransaction float64 `json:"recordsPerTransaction"`
	// AbortedRecords are records of aborted transactions, by sequence number
	// (whether or not their sends were acknowledged): never delivered to a
	// read-committed consumer; a read-uncommitted one may read them.
	AbortedRecords int64 `json:"abortedRecords"`
	// AbortedDelivered are records of aborted transactions a consumer received
	// (an error under read-committed isolation).
	AbortedDelivered int64 `json:"abortedDelivered"`
	// InDoubt counts transactions whose commit went unanswered; InDoubtRecords
	// their records, InDoubtDelivered those a consumer received (under
	// read-committed isolation: they did commit).
	InDoubt          int64 `json:"inDoubt,omitempty"`
	InDoubtRecords   int64 `json:"inDoubtRecords,omitempty"`
	InDoubtDelivered int64 `json:"inDoubtDelivered,omitempty"`
	// Commit is each of those commits' time, in microseconds (CommitMicros).
	Commit Percentiles `json:"commitMicros"`
}

// addTransactions adds one producer's transactions to the trial's.
func addTransactions(t **Transactions, s *TransactionStats, measured, records *int64, firstAbort *string) {
	if s == nil {
		return
	}
	if *t == nil {
		*t = &Transactions{}
	}
	(*t).Committed += s.Committed
	(*t).Aborted += s.Aborted
	(*t).InDoubt += s.InDoubt
	*measured += s.Measured
	*records += s.MeasuredRecords
	if *firstAbort == "" {
		*firstAbort = s.FirstAbort
	}
}

// abortWarning says what the aborted transactions were.
func abortWarning(t *Transactions, first string) string {
	return fmt.Sprintf("%d transactions aborted (%d records; first: %s): their records are not delivered to read-committed consumers",
		t.Aborted, t.AbortedRecords, first)
}

// txnSlip adds to a transactional trial's slipped-rate warning what held the
// sender: it waits for each commit before the transaction's next record.
func txnSlip(r *Result) string {
	if r.Transactions == nil || r.Transactions.Commit.Count == 0 {
		return ""
	}
	return fmt.Sprintf("; the producers wait for each commit before sending on (commit p50 %.1f ms, p99 %.1f ms): that wait is part of what transactions cost",
		float64(r.Transactions.Commit.P50)/1e3, float64(r.Transactions.Commit.P99)/1e3)
}
