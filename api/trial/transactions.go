package trial

import "fmt"

// Transactions makes each producer transactional (Java's transactional.id, one per
// producer; idempotence implied) and says where a transaction ends: after
// RecordsPerTransaction records, or before the first record due TransactionMillis
// or more after the transaction's first (checked as each record is sent, like
// Kafka's ProducerPerformance --transaction-duration-ms; due is the schedule's
// intended send time). The zero value is no transactions.
// +kubebuilder:validation:XValidation:rule="!(has(self.recordsPerTransaction) && has(self.transactionMillis))",message="transactions: set recordsPerTransaction or transactionMillis, not both"
// +structType=atomic
type Transactions struct {
	// RecordsPerTransaction commits after this many records.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000000
	// +optional
	RecordsPerTransaction int32 `json:"recordsPerTransaction,omitempty"`
	// TransactionMillis commits before the first record due this long after
	// the transaction's first.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=600000
	// +optional
	TransactionMillis int32 `json:"transactionMillis,omitempty"`
}

// Enabled is whether the producers are transactional.
func (t Transactions) Enabled() bool { return t.RecordsPerTransaction > 0 || t.TransactionMillis > 0 }

// String is how a trial's label shows the setting: 100rec or 50ms per transaction.
func (t Transactions) String() string {
	switch {
	case t.RecordsPerTransaction > 0:
		return fmt.Sprintf("%drec", t.RecordsPerTransaction)
	case t.TransactionMillis > 0:
		return fmt.Sprintf("%dms", t.TransactionMillis)
	}
	return "none"
}
