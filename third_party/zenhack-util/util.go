// Package util is a stand-in for zenhack.net/go/util (see README.md): the two
// helpers capnproto.org/go/capnp/v3 uses.
package util

import "sync"

// Idempotent returns a function that calls f the first time it is called and does
// nothing after that.
func Idempotent(f func()) func() {
	var once sync.Once
	return func() { once.Do(f) }
}

// Chkfatal panics if err is not nil.
func Chkfatal(err error) {
	if err != nil {
		panic(err)
	}
}
