package producer

import (
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
)

// TestEveryClientHasAProducer: each client the API names has its producer, unset
// means the default, and a name without one is refused rather than measured as
// another client.
func TestEveryClientHasAProducer(t *testing.T) {
	for _, c := range trial.RuntimeGo.Clients() {
		if _, err := clientFor(c); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
	if len(clients) != len(trial.RuntimeGo.Clients()) {
		t.Errorf("%d producers for %d clients", len(clients), len(trial.RuntimeGo.Clients()))
	}
	if _, err := clientFor(""); err != nil {
		t.Errorf("unset client: %v", err)
	}
	if _, err := clientFor("kafka-go"); err == nil || !strings.Contains(err.Error(), `"kafka-go"`) {
		t.Errorf("an unknown client: %v, want an error naming it", err)
	}
}
