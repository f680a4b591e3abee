package kafkaconn

import (
	"testing"

	"github.com/IBM/sarama"
)

func TestApply(t *testing.T) {
	c := sarama.NewConfig()
	if err := (Security{}).Apply(c); err != nil || c.Net.TLS.Enable || c.Net.SASL.Enable {
		t.Fatalf("zero value must be plaintext: %v", err)
	}
	c = sarama.NewConfig()
	if err := (Security{TLS: true, SASLMechanism: "SCRAM-SHA-512", Username: "u", Password: "p"}).Apply(c); err != nil {
		t.Fatal(err)
	}
	if !c.Net.TLS.Enable || c.Net.SASL.Mechanism != sarama.SASLTypeSCRAMSHA512 || c.Net.SASL.SCRAMClientGeneratorFunc == nil {
		t.Fatal("TLS/SCRAM not applied")
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Security{{TLS: true, CAPEM: []byte("not pem")}, {SASLMechanism: "GSSAPI", Username: "u"}, {SASLMechanism: "PLAIN"}} {
		if err := bad.Apply(sarama.NewConfig()); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
