// Package mutex is a stand-in for zenhack.net/go/util/sync/mutex (see README.md): a
// mutex that owns the value it protects, reachable only while it is held.
package mutex

import "sync"

// Mutex protects a value of type T.
type Mutex[T any] struct {
	mu  sync.Mutex
	val T
}

// New returns a Mutex holding val.
func New[T any](val T) Mutex[T] { return Mutex[T]{val: val} }

// Locked is the held state of a Mutex: its Value is safe to use until Unlock.
type Locked[T any] struct{ m *Mutex[T] }

// Lock acquires the mutex.
func (m *Mutex[T]) Lock() *Locked[T] {
	m.mu.Lock()
	return &Locked[T]{m: m}
}

// Value returns the protected value.
func (l *Locked[T]) Value() *T { return &l.m.val }

// Unlock releases the mutex.
func (l *Locked[T]) Unlock() { l.m.mu.Unlock() }

// With calls f with the value while holding the mutex.
func (m *Mutex[T]) With(f func(*T)) {
	l := m.Lock()
	defer l.Unlock()
	f(l.Value())
}

// With1 is With for a function with one result.
func With1[T, A any](m *Mutex[T], f func(*T) A) A {
	l := m.Lock()
	defer l.Unlock()
	return f(l.Value())
}

// With2 is With for a function with two results.
func With2[T, A, B any](m *Mutex[T], f func(*T) (A, B)) (A, B) {
	l := m.Lock()
	defer l.Unlock()
	return f(l.Value())
}

// With3 is With for a function with three results.
func With3[T, A, B, C any](m *Mutex[T], f func(*T) (A, B, C)) (A, B, C) {
	l := m.Lock()
	defer l.Unlock()
	return f(l.Value())
}

// With4 is With for a function with four results.
func With4[T, A, B, C, D any](m *Mutex[T], f func(*T) (A, B, C, D)) (A, B, C, D) {
	l := m.Lock()
	defer l.Unlock()
	return f(l.Value())
}
