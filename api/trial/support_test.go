package trial

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/internal/testing/golden"
)

// TestSupportTable: every feature says, for every client, whether and how it
// has it (a client added without saying fails here), and docs/producer-settings.md's
// support table is this table.
func TestSupportTable(t *testing.T) {
	var b strings.Builder
	b.WriteString("| feature | asked of |")
	for _, c := range Clients {
		fmt.Fprintf(&b, " %s |", c)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(Clients)) + "\n")
	for _, f := range Features {
		if f.Side != SideProducers && f.Side != SideConsumers && f.Side != SideBoth {
			t.Errorf("feature %s: side %q is none of producers, consumers, both", f.Name, f.Side)
		}
		fmt.Fprintf(&b, "| %s | %s |", f.Name, f.Side)
		for _, c := range Clients {
			sup, ok := f.Clients[c]
			if !ok || sup.How == "" {
				t.Errorf("feature %s: client %s has no entry (say how it has it, or what it lacks)", f.Name, c)
			}
			mark := "no: "
			if sup.Has {
				mark = "yes: "
			}
			note := ""
			if sup.Refuse != nil {
				note = " (with conditions: see below)"
			}
			fmt.Fprintf(&b, " %s%s%s |", mark, sup.How, note)
		}
		b.WriteString("\n")
	}
	golden.Section(t, filepath.Join("..", "..", "docs", "producer-settings.md"), "client support", b.String())
}

// TestUnsupportedSaysWhy: a client that lacks a feature the settings ask for is
// refused with the feature's name and the client's reason.
func TestUnsupportedSaysWhy(t *testing.T) {
	old := Features
	defer func() { Features = old }()
	Features = []Feature{{Name: "teleport", Uses: func(s Settings) bool { return s.Idempotent },
		Clients: map[Client]Support{ClientSarama: {How: "sarama cannot teleport"}, ClientFranz: {Has: true, How: "Teleport()"}}}}
	if err := Unsupported(Settings{Client: ClientSarama, Idempotent: true}); err == nil || err.Error() != "client sarama has no teleport: sarama cannot teleport" {
		t.Fatalf("error %v", err)
	}
	for _, s := range []Settings{{Client: ClientSarama}, {Client: ClientFranz, Idempotent: true}} {
		if err := Unsupported(s); err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
	}
	if err := Unsupported(Settings{Client: ClientRdkafka, Idempotent: true}); err == nil || !strings.Contains(err.Error(), "client librdkafka has no teleport") {
		t.Fatalf("a client the feature does not list: %v", err)
	}
}

// TestDefaultsAskNoFeature: a setting left at its default asks no client for a
// feature (admission's generated rules read an absent setting as asking none).
func TestDefaultsAskNoFeature(t *testing.T) {
	s := Settings{Mode: DefaultMode, Client: DefaultClient, Isolation: IsolationReadUncommitted, GroupProtocol: GroupProtocolClassic}
	for _, r := range Table {
		if r.Default != nil {
			reflect.ValueOf(&s).Elem().FieldByName(r.Field).Set(reflect.ValueOf(r.Default))
		}
	}
	for _, f := range Features {
		if f.Uses(s) {
			t.Errorf("the default settings ask for %s", f.Name)
		}
		if f.Setting == "" || f.CEL == "" {
			t.Errorf("feature %s: no Setting and CEL for admission", f.Name)
		}
	}
}
