// Package deferred is a stand-in for zenhack.net/go/util/deferred (see README.md).
package deferred

// Queue collects functions to run later, for example after a lock is released.
// The zero value is an empty queue.
type Queue []func()

// Defer adds f to the queue.
func (q *Queue) Defer(f func()) { *q = append(*q, f) }

// Run calls the queued functions in the order they were added and empties the queue.
func (q *Queue) Run() {
	fs := *q
	*q = nil
	for _, f := range fs {
		f()
	}
}
