//go:build !cgo

package consumer

import "errors"

// newRdkafkaMember: librdkafka is C, linked through cgo.
func newRdkafkaMember(*consumer, string) (member, error) {
	return nil, errors.New("client librdkafka needs a worker built with cgo (CGO_ENABLED=1; the worker image links librdkafka statically)")
}
