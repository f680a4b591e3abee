package producer

import (
	"context"
	"fmt"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/summary"
)

// client is a Kafka client library's asynchronous producer as the worker drives it.
type client interface {
	// send hands m to the client, false if ctx ended first. For every message
	// handed over the client later calls run.acknowledge exactly once, from one
	// goroutine at a time.
	send(ctx context.Context, m *message) bool
	// acks delivers outcomes until close's work is done, or until stop closes; no
	// outcome is delivered after it returns.
	acks(stop <-chan struct{})
	// copiesValue is whether send copies the record's value before it returns
	// (the worker may then write the next record into the same buffer).
	copiesValue() bool
	// close starts closing: nothing more is sent; what is in flight is still
	// reported.
	close()
	// release closes the connections.
	release()
	// settings are the client's own settings, by its names, where their meaning
	// differs between clients (recorded in the result).
	settings() map[string]string
	// stats are the client's own statistics so far (summary.ClientStats).
	stats() *summary.ClientStats
}

// newClientFunc makes a client's producer: ctx bounds its connection, drain its
// last acknowledgements.
type newClientFunc func(ctx, drain context.Context, r *run, clientID string, maxValue, topicMax int) (client, error)

// clients is every client's producer, one file each (sarama.go, franz.go,
// rdkafka.go): a client missing here is refused, never measured as another.
var clients = map[trial.Client]newClientFunc{
	trial.ClientSarama: func(ctx, _ context.Context, r *run, id string, maxValue, topicMax int) (client, error) {
		return newSarama(ctx, r, id, maxValue, topicMax)
	},
	trial.ClientFranz: func(ctx, drain context.Context, r *run, id string, maxValue, topicMax int) (client, error) {
		return newFranz(ctx, drain, r, id, maxValue, topicMax)
	},
	trial.ClientRdkafka: func(_, drain context.Context, r *run, id string, maxValue, topicMax int) (client, error) {
		return newRdkafka(drain, r, id, maxValue, topicMax)
	},
}

// clientFor is c's producer (unset: trial.DefaultClient).
func clientFor(c trial.Client) (newClientFunc, error) {
	f, ok := clients[c.OrDefault()]
	if !ok {
		return nil, fmt.Errorf("client %q: this worker has no such client (it has %v)", c, trial.RuntimeGo.Clients())
	}
	return f, nil
}
