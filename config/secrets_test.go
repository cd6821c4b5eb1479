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
		"max.poll.records": "500"}
	if err := c.Finalize(); err != nil {
		t.Fatalf("harmless properties refused: %v", err)
	}
	// Security settings are the cluster's, not a case's, secret or not.
	for _, k := range []string{"ssl.keystore.location", "security.protocol", "consumer.sasl.mechanism", "sasl.oauthbearer.client.credentials.client.id"} {
		c = ksCase()
		c.Streams = map[string]string{k: "x"}
		if err := c.Finalize(); err == nil || !strings.Contains(err.Error(), "streams."+k) || !strings.Contains(err.Error(), "--command-config") {
			t.Errorf("streams %s: %v", k, err)
		}
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

// Names and values that hide a credential in a way the first checks
// missed are refused too, and the Kafka settings that only look like them
// are not.
func TestMoreSecretShapesAreRefused(t *testing.T) {
	for _, k := range []string{"x.token", "x.credentials", "x.apikey", "x.api.key", "x.pwd", "x.pass", "accessToken", "x.apiKey",
		"aws.access.key", "x.tokens", "x.credential", "db.passwd"} {
		if !IsSecretKey(k) {
			t.Errorf("IsSecretKey(%q) = false", k)
		}
		c := ksCase()
		c.Streams = map[string]string{k: "hunter2"}
		if err := c.Finalize(); err == nil || !strings.Contains(err.Error(), "streams."+k) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("streams %s: %v", k, err)
		}
	}
	for _, k := range []string{"sasl.oauthbearer.token.endpoint.url", "sasl.oauthbearer.client.credentials.client.id", "bypass.cache",
		"passthrough", "tokenizer.class", "num.standby.replicas", "max.poll.records", "ssl.keystore.location", "state.dir",
		"default.key.serde", "key.deserializer", "sasl.oauthbearer.jwks.endpoint.url", "delegation.token.expiry.time.ms"} {
		if IsSecretKey(k) {
			t.Errorf("IsSecretKey(%q) = true", k)
		}
	}
	jwtValue := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJodW50ZXIyIn0.c2lnbmF0dXJlaHVudGVyMg"
	for name, v := range map[string]string{
		"Basic":                  "Basic dXNlcjpodW50ZXIy",
		"Bearer JWT":             "Bearer " + jwtValue,
		"bare JWT":               jwtValue,
		"userinfo without URL":   "u:hunter2@host:9092",
		"percent-encoded URL":    "http%3A%2F%2Fu%3Ahunter2%40host",
		"twice-encoded URL":      "http%253A%252F%252Fu%253Ahunter2%2540host",
		"pass=":                  "pass=hunter2",
		"pwd=":                   "x;pwd=hunter2",
		"token=":                 "token=hunter2",
		"secret=":                "secret=hunter2",
		"apikey=":                "apikey=hunter2",
		"api_key=":               "api_key=hunter2",
		"SSH2 key":               "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nAAAAhunter2\n---- END SSH2 ENCRYPTED PRIVATE KEY ----",
		"PuTTY key":              "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nPrivate-Lines: 1\nhunter2",
		"AWS access key id":      "AKIAIOSFODNN7HUNTER2",
		"JSON token":             `{"token": "hunter2"}`,
		"camelCase password key": "keyStorePassword=hunter2",
	} {
		if SecretShape(v) == "" {
			t.Errorf("%s: SecretShape(%q) is empty", name, v)
		}
		c := ksCase()
		c.Streams = map[string]string{"x.custom": v}
		if err := c.Finalize(); err == nil || !strings.Contains(err.Error(), "streams.x.custom") || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %v", name, err)
		}
		if r := RedactText("a: " + v + "\n# b " + v); strings.Contains(r, "hunter2") || strings.Contains(r, "dXNlcjpodW50ZXIy") || strings.Contains(r, "AKIAIOSFODNN7") || strings.Contains(r, "eyJ") {
			t.Errorf("%s: RedactText leaves %q", name, r)
		}
	}
	for _, v := range []string{"basic restores", "a bearer authentication", "http://registry:8081", "alice@example.com", "localhost:9092",
		"com.example.MySetter", "exactly_once_v2", "at_least_once", "100%", "50%25", "-XX:+UseG1GC", "org.apache.kafka.common.serialization.Serdes$StringSerde"} {
		if s := SecretShape(v); s != "" {
			t.Errorf("SecretShape(%q) = %s", v, s)
		}
		if r := RedactText(v); r != v {
			t.Errorf("RedactText(%q) = %q", v, r)
		}
	}
}

// A secret in a case's jvm_flags (a -D property that names one, or a
// credential-shaped value) is refused at the flag, unquoted; other flags
// pass.
func TestJVMFlagSecretsAreRefused(t *testing.T) {
	for _, f := range []string{"-Djavax.net.ssl.keyStorePassword=hunter6", "-Dpassword=hunter7", "-Dx.token=hunter7", "-Dapp.url=http://u:hunter7@h",
		"-javaagent:/a.jar=token=hunter7", "-Dx=Basic aHVudGVyNzpodW50ZXI3", "-Djavax.net.ssl.trustStorePassword=hunter7"} {
		for _, engine := range Engines {
			c := DefaultCase()
			c.Name, c.Engine = "x", engine
			c.JVMFlags = []string{"-XX:+UseG1GC", f}
			err := c.Finalize()
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Path != "jvm_flags[1]" || strings.Contains(err.Error(), "hunter") || strings.Contains(err.Error(), "aHVudGVy") {
				t.Errorf("%s on %s: %v, want an error at jvm_flags[1] that does not quote the value", f, engine, err)
			}
		}
		if r := RedactJVMFlags([]string{f}); strings.Contains(r[0], "hunter") || strings.Contains(r[0], "aHVudGVy") {
			t.Errorf("RedactJVMFlags(%s) = %q", f, r)
		}
	}
	c := ksCase()
	c.JVMFlags = []string{"-XX:+UseG1GC", "-Xss2m", "-XX:MaxGCPauseMillis=200"}
	if err := c.Finalize(); err != nil {
		t.Fatalf("harmless JVM flags refused: %v", err)
	}
	if r := RedactJVMFlags(c.JVMFlags); &r[0] != &c.JVMFlags[0] {
		t.Error("RedactJVMFlags copied flags with nothing to hide")
	}
	if r := RedactJVMFlags([]string{"-Xmx1g", "-Dpassword=hunter7"}); r[0] != "-Xmx1g" || r[1] != "-Dpassword=[hidden]" {
		t.Errorf("RedactJVMFlags = %q", r)
	}
}

// RedactText hides what a profile's YAML can hold, comments and
// descriptions included, and keeps the rest of it: a PEM BEGIN without an
// END hides only to the end of its line.
func TestRedactTextKeepsTheProfile(t *testing.T) {
	in := "name: secrun\n" +
		`description: "cluster creds password=hunter2 https://bob:hunter3@h/ -----BEGIN PRIVATE KEY----- x"` + "\n" +
		"# sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"hunter4\";\n" +
		"# ssl.key.password=hunter7\n" +
		`# jaas in a quoted string: "x password=\"hunter8\";"` + "\n" +
		"fill: {records: 1000}  # token: hunter9\n" +
		"cases:\n" +
		"  - name: a\n" +
		"    streams:\n" +
		"      basic.auth.user.info: |\n" +
		"        alice:hunter5\n" +
		"      x.plain: \"1\"\n" +
		"      x.key: |\n" +
		"        -----BEGIN PRIVATE KEY-----\n" +
		"        MIIEvQIBADANBgkqhkiG9w0BAQEFAASChunter6\n" +
		"        -----END PRIVATE KEY-----\n" +
		"      x.after: \"2\"\n" +
		"      x.desc: \"use pass=hunterA or Basic aHVudGVyQjpodW50ZXJC or AKIAIOSFODNN7HUNTERC\"\n"
	out := RedactText(in)
	for _, leak := range []string{"hunter", "aHVudGVy", "AKIAIOSFODNN7", "BEGIN"} {
		if strings.Contains(out, leak) {
			t.Errorf("RedactText leaves %q:\n%s", leak, out)
		}
	}
	for _, kept := range []string{"name: secrun", "https://[hidden]@h/", "password=[hidden]", "ssl.key.password=[hidden]", "fill: {records: 1000}", "cases:",
		"  - name: a", "      basic.auth.user.info: |\n        [hidden]\n", `x.plain: "1"`, "      x.key: |\n        [hidden]\n      x.after", `x.after: "2"`, `required username="u"`} {
		if !strings.Contains(out, kept) {
			t.Errorf("RedactText lost %q:\n%s", kept, out)
		}
	}
	// An END that follows lines which are not the block's does not take them.
	in = "a: -----BEGIN X-----\nb: 1\nc: -----END X-----\nd: 2"
	if out := RedactText(in); out != "a: [hidden]\nb: 1\nc: -----END X-----\nd: 2" {
		t.Errorf("RedactText(%q) = %q", in, out)
	}
}
