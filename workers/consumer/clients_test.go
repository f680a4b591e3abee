package consumer

import (
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
)

// TestEveryClientHasAConsumer: each client the API names has its consumer, unset
// means the default, and a name without one is refused rather than measured as
// another client.
func TestEveryClientHasAConsumer(t *testing.T) {
	for _, c := range trial.Clients {
		if _, err := memberFor(c); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
	if len(members) != len(trial.Clients) {
		t.Errorf("%d consumers for %d clients", len(members), len(trial.Clients))
	}
	if _, err := memberFor(""); err != nil {
		t.Errorf("unset client: %v", err)
	}
	if _, err := memberFor("kafka-go"); err == nil || !strings.Contains(err.Error(), `"kafka-go"`) {
		t.Errorf("an unknown client: %v, want an error naming it", err)
	}
}
