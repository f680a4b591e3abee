package report

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/summary"
)

// transactionsOf reads a result's transactions back into the table's units.
func transactionsOf(x *v1alpha1.TransactionsResult) *summary.Transactions {
	if x == nil {
		return nil
	}
	return &summary.Transactions{Committed: x.Committed, Aborted: x.Aborted, PerSecond: float64(x.CommittedPerSecondMilli) / 1000,
		RecordsPerTransaction: float64(x.RecordsPerTransaction), AbortedRecords: x.AbortedRecords, AbortedDelivered: x.AbortedDeliveredRecords,
		InDoubt: x.InDoubt, Commit: summary.Percentiles{P50: x.CommitP50Micros, P99: x.CommitP99Micros, Max: x.CommitMaxMicros}}
}

// TransactionsTable writes the transactional trials' transactions, when there
// are any: what exactly-once cost them (docs/measurement.md, "Transactions").
func TransactionsTable(w io.Writer, rows []Row) error {
	if !slices.ContainsFunc(rows, func(r Row) bool { return r.Transactions != nil }) {
		return nil
	}
	fmt.Fprintln(w, "\nTransactions (measured window; commit: from asking to commit to the coordinator's answer, flush included):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CODEC\tSIZE B\tSETTINGS\ttxn/s\trecords/txn\tcommit p50 ms\tcommit p99 ms\tcommitted\taborted\taborted records\taborted delivered\t")
	for _, r := range rows {
		x := r.Transactions
		if x == nil {
			continue
		}
		settings := r.settingsLabel()
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%d\t%d\t%d\t\n", r.Codec, r.SizeBytes, settings, x.PerSecond,
			x.RecordsPerTransaction, float64(x.Commit.P50)/1e3, float64(x.Commit.P99)/1e3, x.Committed, x.Aborted, x.AbortedRecords, x.AbortedDelivered)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "committed and aborted count every transaction (warmup and the end records' included); aborted records are never delivered to readCommitted consumers.")
	return nil
}
