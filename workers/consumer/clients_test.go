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
	on := func(c trial.Client) trial.Trial { return trial.Trial{Settings: trial.Settings{Client: c}} }
	for _, c := range trial.RuntimeGo.Clients() {
		if _, err := memberFor(on(c)); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
	if len(members) != len(trial.RuntimeGo.Clients()) {
		t.Errorf("%d consumers for %d clients", len(members), len(trial.RuntimeGo.Clients()))
	}
	if _, err := memberFor(on("")); err != nil {
		t.Errorf("unset client: %v", err)
	}
	if _, err := memberFor(on("kafka-go")); err == nil || !strings.Contains(err.Error(), `"kafka-go"`) {
		t.Errorf("an unknown client: %v, want an error naming it", err)
	}
	// A share group is franz-go's alone: the others are refused, not run as
	// consumer groups.
	for _, c := range trial.RuntimeGo.Clients() {
		share := on(c)
		share.Consumer.GroupType = trial.GroupTypeShare
		_, err := memberFor(share)
		if (err == nil) != (c == trial.ClientFranz) {
			t.Errorf("%s in a share group: %v", c, err)
		}
	}
}
