package config

import (
	"errors"
	"strings"
	"testing"
)

const testPEMKey = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----"

// Every PASSWORD-type config of Kafka's clients, under every client prefix
// Kafka Streams knows, and credential-shaped values under harmless names,
// are refused by key and never quoted.
func TestStreamsSecretsAreRefused(t *testing.T) {
	var keys []string
	for k := range kafkaPasswordConfigs {
		keys = append(keys, k)
		for _, p := range clientPrefixes {
			keys = append(keys, p+k)
		}
	}
	keys = append(keys, "my.api.password", "vault.secret", "main.consumer.producer.ssl.keystore.key")
	for _, k := range keys {
		c := ksCase()
		c.Streams = map[string]string{k: "hunter2-value"}
		err := c.Finalize()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != "streams."+k || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("streams %s: error %v, want one at streams.%s that does not quote the value", k, err, k)
		}
	}
	for name, v := range map[string]string{
		"PEM key":          testPEMKey,
		"PEM certificate":  "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
		"URL userinfo":     "http://alice:s3cr3t@registry:8081",
		"URL user only":    "https://token123@example.com/path",
		"second URL":       "http://a:8081,http://bob:pw@b:8081",
		"JAAS":             `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="hunter2";`,
		"password setting": "user=alice;password=hunter2",
	} {
		for _, engine := range Engines {
			c := DefaultCase()
			c.Name, c.Engine = "x", engine
			c.Streams = map[string]string{"schema.registry.url": v}
			err := c.Finalize()
			if err == nil || !strings.Contains(err.Error(), "streams.schema.registry.url") || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "BEGIN") {
				t.Errorf("%s on %s: error %v, want one naming the key and not quoting the value", name, engine, err)
			}
		}
	}
	// A topic config is a property too.
	c := DefaultCase()
	c.Name, c.Scenario = "x", ScenarioCompaction
	c.Compaction = &CompactionSettings{TopicConfigs: map[string]string{"x.password": "p"}, Settle: Duration(1)}
	if err := c.Finalize(); err == nil || !strings.Contains(err.Error(), "compaction.topic_configs.x.password") {
		t.Errorf("topic config secret: %v", err)
	}
	// Harmless values stay allowed.
	c = ksCase()
	c.Streams = map[string]string{"schema.registry.url": "http://registry:8081", "num.standby.replicas": "1",
		"sasl.oauthbearer.client.credentials.client.id": "app", "ssl.keystore.location": "/etc/ks.p12"}
	if err := c.Finalize(); err != nil {
		t.Fatalf("harmless properties refused: %v", err)
	}
}

// Redact hides every secret a map can hold, keeps the rest, and never
// changes the map it was given.
func TestRedact(t *testing.T) {
	in := map[string]string{
		"ssl.keystore.key":                     testPEMKey,
		"consumer.ssl.truststore.certificates": "-----BEGIN CERTIFICATE-----",
		"basic.auth.user.info":                 "alice:pw",
		"schema.registry.url":                  "http://alice:pw@registry:8081/x,https://bob@other",
		"custom":                               "user=a password=pw",
		"num.standby.replicas":                 "1",
		"bootstrap.servers":                    "localhost:9092",
	}
	orig := map[string]string{}
	for k, v := range in {
		orig[k] = v
	}
	out := Redact(in)
	want := map[string]string{
		"ssl.keystore.key":                     Hidden,
		"consumer.ssl.truststore.certificates": Hidden,
		"basic.auth.user.info":                 Hidden,
		"schema.registry.url":                  "http://[hidden]@registry:8081/x,https://[hidden]@other",
		"custom":                               Hidden,
		"num.standby.replicas":                 "1",
		"bootstrap.servers":                    "localhost:9092",
	}
	for k, v := range want {
		if out[k] != v {
			t.Errorf("%s = %q, want %q", k, out[k], v)
		}
	}
	for k, v := range orig {
		if in[k] != v {
			t.Fatalf("Redact changed its input at %s", k)
		}
	}
	if got := Pairs(in, " "); strings.Contains(got, "pw") || strings.Contains(got, "BEGIN") || !strings.Contains(got, "num.standby.replicas=1") {
		t.Errorf("Pairs shows %q", got)
	}
	if RedactText("x -----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY----- y http://u:p@h") != "x [hidden] y http://[hidden]@h" {
		t.Errorf("RedactText: %q", RedactText("x -----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY----- y http://u:p@h"))
	}
	if m := map[string]string{"a": "b"}; Redact(m)["a"] != "b" {
		t.Fatal("a map without secrets changed")
	}
}

// Client overrides of what restorebench owns are refused under every
// prefix Kafka Streams knows, with the key the user wrote.
func TestPrefixedReservedStreamsAreRefused(t *testing.T) {
	for _, k := range []string{"consumer.bootstrap.servers", "main.consumer.bootstrap.servers", "restore.consumer.bootstrap.servers",
		"global.consumer.bootstrap.servers", "producer.bootstrap.servers", "admin.bootstrap.servers", "consumer.restorebench.store.type"} {
		c := ksCase()
		c.Streams = map[string]string{k: "elsewhere:9092"}
		err := c.Finalize()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != "streams."+k {
			t.Errorf("streams %s: error %v, want one at streams.%s", k, err, k)
		}
	}
}

// A common setting's bad value written through its streams key is
// reported at that key, not at the setting it maps to.
func TestMappedStreamsErrorsNameTheStreamsKey(t *testing.T) {
	for _, m := range mappedStreams {
		c := ksCase()
		c.Streams = map[string]string{m.key: "0"}
		err := c.Finalize()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != "streams."+m.key {
			t.Errorf("streams %s: 0: error %v, want one at streams.%s", m.key, err, m.key)
		}
	}
}

// Warm counts are bounded by the fill; the defaults shrink to fit it.
func TestWarmChangedIsBoundedByTheFill(t *testing.T) {
	c := DefaultCase()
	c.Name, c.Scenario = "w", ScenarioWarm
	c.Warm = &WarmSettings{Changed: []Count{{N: 10}, {N: 10_000_000}}}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	err := c.FitWarmToFill(2500, false)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Path != "warm.changed[1]" || !strings.Contains(err.Error(), "at most 25000") {
		t.Fatalf("10M changed over a 2500-record fill: %v", err)
	}
	c.Warm = DefaultWarm()
	if err := c.FitWarmToFill(2500, false); err != nil || len(c.Warm.Changed) != 3 {
		t.Fatalf("defaults over a small fill: %v, %v", err, c.Warm.Changed)
	}
	c.Warm = &WarmSettings{Changed: []Count{{Percent: 2000}}}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "warm.changed[0]") {
		t.Fatalf("2000%%: %v", err)
	}
}
