//go:build !linux

package engine

import (
	"context"
	"fmt"

	"github.com/serdebench/serdebench/internal/netem"
)

// Engine needs Linux's NFQUEUE; elsewhere Open fails.
type Engine struct{}

// Open fails: the engine needs Linux.
func Open(iface string, num uint16) (*Engine, error) {
	return nil, fmt.Errorf("local network faults need Linux (NFQUEUE)")
}

// Apply does nothing (Open never returns an Engine here).
func (e *Engine) Apply(context.Context, netem.Impairment, uint64) error { return nil }

// Clear does nothing.
func (e *Engine) Clear(context.Context) (netem.Stats, error) { return netem.Stats{}, nil }

// Close does nothing.
func (e *Engine) Close() error { return nil }
