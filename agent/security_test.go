package agent

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/ksdriver"
)

// TestProcessPropertiesUseTheAgentsConnection: whatever connection
// settings a coordinator sends (its brokers, its trust store path, under
// any client prefix), a process gets the agent's own, secrets apart.
func TestProcessPropertiesUseTheAgentsConnection(t *testing.T) {
	sec := &cluster.Security{Protocol: "SASL_PLAINTEXT", Mechanism: "SCRAM-SHA-512", Username: "agent-user", Password: "agent-secret"}
	jc, err := processClient(cluster.Config{Brokers: []string{"kafka-a:9092"}, Settings: sec})
	if err != nil {
		t.Fatal(err)
	}
	a := &Agent{client: jc}
	got := a.processProperties(map[string]string{
		"application.id":                     "app",
		"num.stream.threads":                 "2",
		"bootstrap.servers":                  "coordinator:9092",
		"security.protocol":                  "SSL",
		"ssl.truststore.location":            "/home/coordinator/ca.pem",
		"restore.consumer.ssl.keystore.type": "PKCS12",
		"main.consumer.sasl.mechanism":       "PLAIN",
		ksdriver.PropConnectTimeoutMs:        "1",
		ksdriver.PropSecretsFile:             "/tmp/x",
		"restore.consumer.max.poll.records":  "500",
		"restorebench.processed.interval.ms": "20",
	})
	want := map[string]string{"application.id": "app", "num.stream.threads": "2", "restore.consumer.max.poll.records": "500",
		"restorebench.processed.interval.ms": "20", "bootstrap.servers": "kafka-a:9092", "security.protocol": "SASL_PLAINTEXT",
		"sasl.mechanism": "SCRAM-SHA-512", ksdriver.PropConnectTimeoutMs: "15000"}
	if len(got) != len(want) {
		t.Fatalf("properties %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s=%q, want %q", k, got[k], v)
		}
	}
	for k, v := range got {
		if strings.Contains(v, "agent-secret") {
			t.Errorf("%s holds the agent's password: properties are written to CONFIG.properties", k)
		}
	}
	if !strings.Contains(jc.Secret["sasl.jaas.config"], "agent-secret") {
		t.Fatal("the agent's password does not reach its processes' secrets file")
	}
}

// TestCoordinatorRefusesSecrets: a property that looks like a secret is
// never sent through the control topic.
func TestCoordinatorRefusesSecrets(t *testing.T) {
	for _, k := range []string{"sasl.jaas.config", "producer.ssl.key.password", "ssl.keystore.key", "my.secret.token"} {
		if err := refuseSecrets(map[string]string{k: "x"}); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s: %v", k, err)
		}
	}
	if err := refuseSecrets(map[string]string{"application.id": "a", "ssl.truststore.type": "PEM"}); err != nil {
		t.Fatal(err)
	}
}
