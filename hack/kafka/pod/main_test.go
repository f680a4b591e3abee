package main

import (
	"strings"
	"testing"
)

func TestIdentity(t *testing.T) {
	id, addrs, err := identity("kafka-2", "10.96.0.100,10.96.0.101,10.96.0.102")
	if err != nil || id != 2 || len(addrs) != 3 {
		t.Fatalf("identity = %d, %v, %v; want 2 of 3 addresses", id, addrs, err)
	}
	for _, c := range [][2]string{{"kafka", "a,b,c"}, {"kafka-x", "a,b,c"}, {"kafka-3", "a,b,c"}, {"kafka-0", ""}} {
		if _, _, err := identity(c[0], c[1]); err == nil {
			t.Errorf("identity(%q, %q): no error", c[0], c[1])
		}
	}
}

func TestProperties(t *testing.T) {
	p := properties(1, []string{"10.96.0.100", "10.96.0.101", "10.96.0.102"})
	for _, want := range []string{
		"node.id=1\n",
		"controller.quorum.voters=0@10.96.0.100:9093,1@10.96.0.101:9093,2@10.96.0.102:9093\n",
		"advertised.listeners=PLAINTEXT://10.96.0.101:9092\n",
		"offsets.topic.replication.factor=3\n",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("properties lack %q:\n%s", want, p)
		}
	}
}
