package runs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
)

// secretsResults holds a secret in every place a setting can reach
// results.json: the case's streams and topic configs, the instances'
// properties, the compaction record, the profile's YAML and the errors.
func secretsResults() *Results {
	pem := "-----BEGIN PRIVATE KEY-----\nTOPSECRETKEY\n-----END PRIVATE KEY-----"
	c := config.DefaultCase()
	c.Name, c.Scenario = "a", config.ScenarioCompaction
	c.Streams = map[string]string{"ssl.keystore.key": pem, "schema.registry.url": "http://alice:TOPSECRETPW@registry:8081", "num.standby.replicas": "1"}
	c.Compaction = &config.CompactionSettings{TopicConfigs: map[string]string{"x.password": "TOPSECRETPW"}}
	c.JVMFlags = []string{"-Xss2m", "-Djavax.net.ssl.keyStorePassword=TOPSECRETPW"}
	return &Results{
		SchemaVersion: SchemaVersion, RunID: "r", Error: "connect http://bob:TOPSECRETPW@h failed",
		Profile: &ProfileInfo{Name: "p", YAML: "name: p\n" +
			`description: "creds pass=TOPSECRETPW https://bob:TOPSECRETPW@h/ -----BEGIN PRIVATE KEY----- x"` + "\n" +
			"# sasl.jaas.config=x.PlainLoginModule required username=\"u\" password=\"TOPSECRETPW\";\n# ssl.key.password=TOPSECRETPW\n" +
			"fill: {records: 1000}\nstreams:\n  ssl.keystore.key: |\n    " + strings.ReplaceAll(pem, "\n", "\n    ") + "\ncases:\n  - name: a\n"},
		Restores: []Restore{{
			Case: "a", Step: &Step{Case: "a", Kind: StepCompaction}, Repeat: 1, Params: c, Error: "instance said " + pem,
			KafkaStreams: &KafkaStreamsRun{Properties: map[string]string{"consumer.basic.auth.user.info": "alice:TOPSECRETPW", "state.dir": "/tmp/x"},
				JVMArgs: []string{"-Xmx1g", "-Dpassword=TOPSECRETPW"}},
			Compaction: &CompactionRecord{TopicConfigs: map[string]string{"segment.bytes": "1024", "sasl.jaas.config": "TOPSECRETPW"}},
		}},
	}
}

// Save writes no secret, whatever map or message holds it, and leaves the
// results it was given (which the run goes on using) as they were; Load
// hides the secrets of a file written before.
func TestSaveAndLoadHideSecrets(t *testing.T) {
	r := secretsResults()
	path := filepath.Join(t.TempDir(), "results.json")
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	for _, leak := range []string{"TOPSECRET", "BEGIN PRIVATE"} {
		if strings.Contains(string(b), leak) {
			t.Fatalf("results.json holds %q:\n%s", leak, b)
		}
	}
	for _, kept := range []string{`"num.standby.replicas": "1"`, `"segment.bytes": "1024"`, `"state.dir": "/tmp/x"`, "http://[hidden]@registry:8081", `"-Xss2m"`, `"-Xmx1g"`,
		`"-Djavax.net.ssl.keyStorePassword=[hidden]"`, `fill: {records: 1000}\n`, `cases:\n  - name: a\n`} {
		if !strings.Contains(string(b), kept) {
			t.Fatalf("results.json lost %s:\n%s", kept, b)
		}
	}
	if !strings.Contains(r.Restores[0].Params.Streams["ssl.keystore.key"], "TOPSECRETKEY") ||
		r.Restores[0].KafkaStreams.Properties["consumer.basic.auth.user.info"] != "alice:TOPSECRETPW" {
		t.Fatal("Save changed the results it was given")
	}
	// A file written by an older build, secrets and all.
	raw, _ := json.Marshal(secretsResults())
	old := filepath.Join(t.TempDir(), "old.json")
	os.WriteFile(old, raw, 0o644)
	loaded, err := Load(old)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(loaded)
	if strings.Contains(string(again), "TOPSECRET") || strings.Contains(string(again), "BEGIN PRIVATE") {
		t.Fatalf("Load kept a secret:\n%s", again)
	}
}
