//go:build !cgo

package producer

import (
	"context"
	"errors"
)

// newRdkafka: librdkafka is C, linked through cgo.
func newRdkafka(context.Context, *run, string, int, int) (client, error) {
	return nil, errors.New("client librdkafka needs a worker built with cgo (CGO_ENABLED=1; the worker image links librdkafka statically)")
}
