package summary

import (
	"strings"
	"testing"
)

// TestMergeAbortedTransactions: records of an aborted transaction are counted
// apart, neither lost nor delivered without an acknowledgement; a read-committed
// consumer that received one is an error, a read-uncommitted one is not.
func TestMergeAbortedTransactions(t *testing.T) {
	producer := func() *Summary {
		// 0..99 committed; 100..149 aborted (one send failed), then re-sent as
		// 150..199, committed. 4 transactions committed, 2 in the measured window.
		return &Summary{Role: RoleProducer, Worker: "0",
			Acked:        []Delivery{{Partition: 0, Intervals: Intervals{{0, 100}, {150, 200}}}},
			Aborted:      []Delivery{{Partition: 0, Intervals: Intervals{{100, 150}}}},
			Failed:       []Delivery{{Partition: 0, Intervals: Intervals{{120, 121}}}},
			Transactions: &TransactionStats{Committed: 4, Aborted: 1, Measured: 2, MeasuredRecords: 100, FirstAbort: "1 of its 50 sends failed"}}
	}
	for _, c := range []struct {
		name          string
		readCommitted bool
		received      Intervals
		errors        int64
	}{
		// The committed records, and nothing of the aborted transaction.
		{"read-committed", true, Intervals{{0, 100}, {150, 200}}, 0},
		// Everything the log holds: the aborted transaction's 49 stored records too.
		{"read-uncommitted", false, Intervals{{0, 120}, {121, 200}}, 0},
		// Exactly-once broken: a read-committed consumer saw aborted records.
		{"read-committed-saw-aborted", true, Intervals{{0, 110}, {150, 200}}, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			var set SeqSet
			for _, iv := range c.received {
				for i := iv[0]; i < iv[1]; i++ {
					set.Add(i)
				}
			}
			r, err := Merge([]*Summary{producer(), {Role: RoleConsumer, Worker: "c0", ReadCommitted: c.readCommitted,
				Received: []Delivery{{Producer: 0, Partition: 0, Total: set.Total(), Intervals: set.Intervals()}}}})
			if err != nil {
				t.Fatal(err)
			}
			tx := r.Transactions
			aborted := set.Intervals().Intersect(Intervals{{100, 150}}).Size()
			if r.Sent != 150 || r.Lost != 0 || r.UnacknowledgedDelivered != 0 || r.Failed != 1 || r.Errors != c.errors ||
				tx == nil || tx.Committed != 4 || tx.Aborted != 1 || tx.AbortedRecords != 50 || tx.AbortedDelivered != aborted || tx.RecordsPerTransaction != 50 {
				t.Fatalf("sent %d lost %d unacked-delivered %d failed %d errors %d (want %d); transactions %+v (want %d aborted delivered)",
					r.Sent, r.Lost, r.UnacknowledgedDelivered, r.Failed, r.Errors, c.errors, tx, aborted)
			}
			if !strings.Contains(strings.Join(r.Warnings, "\n"), "1 transactions aborted (50 records; first: 1 of its 50 sends failed)") {
				t.Fatalf("warnings %q", r.Warnings)
			}
		})
	}
}
