package capacity

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// Env is where restores were measured. Restores from different hosts or
// broker kinds never share a fit or a rate: one line through two machines
// describes neither.
type Env struct {
	Host     string
	CPUs     int
	CPUModel string
	// Broker is "embedded" or "external".
	Broker string
}

// String is e.g. "vm (2 cores), embedded broker".
func (e Env) String() string {
	return fmt.Sprintf("%s (%d cores), %s broker", e.Host, e.CPUs, e.Broker)
}

func envOf(o Obs) Env {
	h := o.Run.Results.Host
	return Env{Host: h.Hostname, CPUs: h.CPUs, CPUModel: h.CPUModel, Broker: o.Run.Results.Broker.Kind}
}

// Setup is one configuration measured in one environment: the restores whose
// settings (every config.Case field but the case name) are equal, on the same
// host and broker kind, across all runs. Fits and rates are per Setup.
type Setup struct {
	// Params are the settings (with the first restore's case name).
	Params config.Case
	Env    Env
	// Cases are the case names the setup's restores ran under.
	Cases []string
	Obs   []Obs
	key   string
}

// Label names the setup: its case names and how its settings differ from
// Kafka Streams' defaults, e.g. "threads-2 (model, threads=2)".
func (s *Setup) Label() string {
	return fmt.Sprintf("%s (%s)", strings.Join(s.Cases, "/"), Describe(s.Params))
}

// ScenarioLabel names a scenario's setup by its case names and engine,
// e.g. "warm (model engine)": its scenario settings are in the records.
func (s *Setup) ScenarioLabel() string {
	return fmt.Sprintf("%s (%s engine)", strings.Join(s.Cases, "/"), runs.EngineOf(s.Params))
}

// Setups groups observations by environment and settings, in first-seen order.
func Setups(obs []Obs) []*Setup {
	var out []*Setup
	index := map[string]*Setup{}
	for _, o := range obs {
		p := o.Restore.Params
		env := envOf(o)
		key := fmt.Sprintf("%+v|%s|%s", env, settingsKey(p), shapeOf(o))
		s, ok := index[key]
		if !ok {
			s = &Setup{Params: p, Env: env, key: key}
			index[key] = s
			out = append(out, s)
		}
		if name := o.Restore.ProfileCase(); !contains(s.Cases, name) {
			s.Cases = append(s.Cases, name)
		}
		s.Obs = append(s.Obs, o)
	}
	return out
}

// shapeOf is what the changelog a restore read was made of, besides its
// size: partitions, key order, value sizes, tombstone share, compression.
// Restores of changelogs of different shapes never share a fit or a rate
// (records per byte and per key change the rate; a fit through them would
// blame the shapes' difference on noise).
func shapeOf(o Obs) string {
	f := o.Run.Results.FillOf(o.Restore.Topic)
	if f != nil && f.ExpectedFrom == runs.ExpectedFromIndependentRead {
		// A topic restorebench did not fill: its shape is its own, so
		// two such topics never share a fit.
		return fmt.Sprintf("topic=%s partitions=%d", o.Restore.Topic, o.Restore.Partitions)
	}
	if f == nil || f.Spec == nil {
		return fmt.Sprintf("partitions=%d", o.Restore.Partitions)
	}
	sp := f.Spec
	shape := fmt.Sprintf("partitions=%d keys=%s values=%d-%d tombstones=%g compression=%s",
		sp.Partitions, sp.KeyOrder, sp.ValueMin, sp.ValueMax, sp.TombstoneRatio, f.Compression)
	if k := sp.StoreKind.Of(); k != loadgen.KindKeyValue {
		// A store kind restores its own way (a window store reads past its
		// expired head and keeps windows): its rates and factors are its own.
		shape += " store=" + string(k)
	}
	return shape
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// settingsKey is the settings as results.json records them (the case name is
// not among them), as one comparable string.
func settingsKey(c config.Case) string {
	b, _ := json.Marshal(c)
	return string(b)
}

// defaultsFor is Kafka Streams' default case as it would have run where c
// ran: on c's engine, with c's machine-dependent RocksDB parallelism.
func defaultsFor(c config.Case) config.Case {
	d := config.DefaultCase()
	d.Engine = c.Engine
	if c.Engine == config.EngineKafkaStreams {
		// The default version is a default setting: a 4.4.0 case runs
		// Kafka Streams' defaults, a 3.9.1 case differs by its version.
		d.KafkaStreamsVersion = config.DriverKafkaStreamsVersion
	}
	d.RocksDB.Parallelism = c.RocksDB.Parallelism
	d.RocksDB.MaxBackgroundJobs = c.RocksDB.Parallelism
	if c.Strategy != config.StrategyIngest {
		d.SortBuffer = c.SortBuffer // only ingest uses it
	}
	return d
}

// Differences lists the settings in which c differs from Kafka Streams'
// defaults (engine aside), by their results.json names (RocksDB options by
// RocksDB's): "threads=2", "compaction_style=level".
func Differences(c config.Case) []string {
	if c.Engine == config.EngineKafkaStreams && c.KafkaStreamsVersion == "" {
		c.KafkaStreamsVersion = config.DriverKafkaStreamsVersion // a record from before the setting
	}
	a, b := flatten(c), flatten(defaultsFor(c))
	var out []string
	for _, k := range sortedKeys(a) {
		if fmt.Sprint(a[k]) != fmt.Sprint(b[k]) && k != "rocksdb_options.preset" {
			// RocksDB options go by RocksDB's own names, which users know.
			out = append(out, fmt.Sprintf("%s=%v", strings.TrimPrefix(k, "rocksdb_options."), show(a[k])))
		}
	}
	return out
}

// IsKafkaStreamsDefault reports whether c runs with Kafka Streams' default
// settings (on either engine): put, 1000 records per poll, one thread,
// Kafka's fetch sizes, the RocksDBStore defaults.
func IsKafkaStreamsDefault(c config.Case) bool { return len(Differences(c)) == 0 }

// Describe is the engine and the settings that differ from Kafka Streams'
// defaults: "model, Kafka Streams defaults" or "model, strategy=ingest".
func Describe(c config.Case) string {
	d := Differences(c)
	if len(d) == 0 {
		return fmt.Sprintf("%s, Kafka Streams defaults", runs.EngineOf(c))
	}
	return fmt.Sprintf("%s, %s", runs.EngineOf(c), strings.Join(d, ", "))
}

// flatten turns c's JSON into dotted keys and scalar values.
func flatten(c config.Case) map[string]any {
	raw, _ := json.Marshal(c)
	var m map[string]any
	json.Unmarshal(raw, &m)
	out := map[string]any{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
				continue
			}
			out[prefix+k] = v
		}
	}
	walk("", m)
	delete(out, "engine")
	// Property values show as results.json records them: secrets hidden,
	// also for settings that never went through a file.
	for k, v := range out {
		for _, p := range []string{"streams.", "compaction.topic_configs."} {
			if name, ok := strings.CutPrefix(k, p); ok {
				if s, isText := v.(string); isText {
					out[k] = config.RedactValue(name, s)
				}
			}
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// show prints a JSON number without an exponent when it is whole.
func show(v any) any {
	if f, ok := v.(float64); ok && f == float64(int64(f)) {
		return int64(f)
	}
	return v
}
