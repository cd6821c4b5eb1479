package runs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
)

// TestOldFilesLoadWithTheDefaultsTheyRanWith: a record written before a
// setting existed (its field absent, so zero) loads with the default it
// ran with, so it compares equal to one that records the default; a
// setting whose zero is real (bloom_bits_per_key) is not replaced.
func TestOldFilesLoadWithTheDefaultsTheyRanWith(t *testing.T) {
	key := func(c config.Case) string {
		c.Name = ""
		b, _ := json.Marshal(c)
		return string(b)
	}
	cur := config.DefaultCase()
	cur.Streams = map[string]string{}
	rec := stepRecord(config.ScenarioCold, Step{Case: "c", Kind: StepRestore})
	rec.Params = config.DefaultCase()
	b, _ := json.Marshal(&Results{SchemaVersion: SchemaVersion, Restores: []Restore{rec}})
	// As an older build wrote it: these settings did not exist.
	old := string(b)
	for _, field := range []string{`"fetch_max_bytes":52428800,`, `"sort_buffer_bytes":67108864,`, `,"level0_stop_writes_trigger":36`, `"scenario":"cold",`, `"engine":"model",`} {
		if !strings.Contains(old, field) {
			t.Fatalf("no %s in %s", field, old)
		}
		old = strings.Replace(old, field, "", 1)
	}
	path := filepath.Join(t.TempDir(), "results.json")
	os.WriteFile(path, []byte(old), 0o644)
	r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := key(r.Restores[0].Params), key(cur); got != want {
		t.Errorf("an old record of the defaults loads as\n%s\nnot\n%s", got, want)
	}
	bloomless := config.DefaultCase()
	bloomless.RocksDB.BloomBitsPerKey = 0
	if key(withDefaults(bloomless)) == key(cur) {
		t.Error("bloom_bits_per_key 0 is a setting of its own, not the default")
	}
}
