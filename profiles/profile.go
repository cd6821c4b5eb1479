// Package profiles reads, validates and expands benchmark profiles: YAML
// files that name a fill, the restore cases to run against it, and how many
// times to repeat each. The built-in profiles are embedded in the binary.
package profiles

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
)

//go:embed *.yaml
var builtin embed.FS

// Profile is a profile file as written.
type Profile struct {
	// Name identifies the profile in results; default: the file name.
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// AppID is Kafka Streams' application.id. Default "restorebench".
	AppID string `yaml:"application_id"`
	// Store is the state store's name. Default "balances".
	Store string `yaml:"store"`
	// Repeats is how many times each case runs. Default 1.
	Repeats int      `yaml:"repeats"`
	Fill    FillSpec `yaml:"fill"`
	// Restore holds the settings every case starts from.
	Restore CaseSpec `yaml:"restore"`
	// Matrix expands into one case per combination of its values (cartesian
	// product, in the order written), e.g. strategy: [put, ingest] and
	// batch_records: [100, 1000]. Keys are case fields.
	Matrix yaml.Node `yaml:"matrix"`
	// Exclude drops matrix combinations matching every key/value of an entry.
	Exclude []map[string]string `yaml:"exclude"`
	// Cases are explicit restore cases, run after the matrix's. With neither
	// matrix nor cases, the run has one case of Restore's settings.
	Cases []CaseSpec `yaml:"cases"`
	// Limits measures, per case, fetch-only and write-only restores of the
	// same changelog, and the restore's efficiency against them. Default false.
	Limits bool `yaml:"limits"`
	// Ready measures the phase after the restore until the store can serve
	// (flush, settled compactions, point reads). Default true.
	Ready *bool `yaml:"ready"`
}

// FillSpec is the fill section: what the changelog holds.
type FillSpec struct {
	// Topic overrides the changelog name, <application_id>-<store>-changelog.
	Topic string `yaml:"topic"`
	// Size ("2GiB") or Records sets how much to write.
	Size    string `yaml:"size"`
	Records int64  `yaml:"records"`
	// Keys is the number of distinct keys. Default 100000.
	Keys int64 `yaml:"keys"`
	// ValueSize is fixed ("200") or a range ("100-1000"). Default "100".
	ValueSize      string  `yaml:"value_size"`
	TombstoneRatio float64 `yaml:"tombstone_ratio"`
	// KeyOrder is uniform (default), zipf or sequential.
	KeyOrder string `yaml:"key_order"`
	// Partitions of the changelog. Default 1.
	Partitions int32 `yaml:"partitions"`
	// Compression is the producer's compression.type. Default "none".
	Compression string `yaml:"compression"`
	// Seed makes the fill reproducible. Default 1.
	Seed *uint64 `yaml:"seed"`
}

// CaseSpec is one restore case; unset fields inherit from the restore section.
type CaseSpec struct {
	Name string `yaml:"name"`
	// Strategy is put (default), bulk, ingest or memory.
	Strategy string `yaml:"strategy"`
	// BatchRecords is the restore consumer's max.poll.records. Default 1000.
	BatchRecords int `yaml:"batch_records"`
	// Threads is the number of restore consumers. Default 1.
	Threads int `yaml:"threads"`
	// FetchMaxBytes is fetch.max.bytes. Default 50 MiB (Kafka's).
	FetchMaxBytes string `yaml:"fetch_max_bytes"`
	// MaxPartitionFetchBytes is max.partition.fetch.bytes. Default 1 MiB.
	MaxPartitionFetchBytes string `yaml:"max_partition_fetch_bytes"`
	// SortBuffer bounds the ingest strategy's in-memory sort. Default 64 MiB.
	SortBuffer string `yaml:"sort_buffer"`
	// RocksDB is the RocksDB option preset. Default "kstreams".
	RocksDB string `yaml:"rocksdb"`
	// Store is "rocksdb" (default) or "memory".
	Store string `yaml:"store"`

	// RocksDB options over the preset, by RocksDB's names.
	WriteBufferSize                string `yaml:"write_buffer_size"`
	MaxWriteBufferNumber           int    `yaml:"max_write_buffer_number"`
	CompactionStyle                string `yaml:"compaction_style"`
	Compression                    string `yaml:"compression"`
	Level0FileNumCompactionTrigger int    `yaml:"level0_file_num_compaction_trigger"`
	Level0SlowdownWritesTrigger    int    `yaml:"level0_slowdown_writes_trigger"`
	Level0StopWritesTrigger        int    `yaml:"level0_stop_writes_trigger"`
	MaxBackgroundJobs              int    `yaml:"max_background_jobs"`
	DisableWAL                     *bool  `yaml:"disable_wal"`
	BlockCacheSize                 string `yaml:"block_cache_size"`
}

// Case is one expanded restore case, with every setting resolved.
type Case struct {
	Name                   string
	Strategy               string
	BatchRecords           int
	Threads                int
	FetchMaxBytes          int32
	MaxPartitionFetchBytes int32
	SortBufferBytes        int64
	RocksDB                string
	RocksDBOptions         measure.RocksDBOptions
	Store                  string
}

// Plan is a validated profile, expanded into what a run executes.
type Plan struct {
	Name        string
	Description string
	Source      string // "builtin" or the file's path
	YAML        string
	AppID       string
	StoreName   string
	Topic       string
	Spec        loadgen.Spec
	Compression string
	Repeats     int
	Cases       []Case
	// Limits and Ready say which extra phases each case measures.
	Limits bool
	Ready  bool
}

// Builtins lists the built-in profile names.
func Builtins() []string {
	ents, _ := builtin.ReadDir(".")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(names)
	return names
}

// Load reads a profile by path, or by built-in name ("quick", "large").
// A path that exists wins over a built-in of the same name.
func Load(nameOrPath string) (*Plan, error) {
	if b, err := os.ReadFile(nameOrPath); err == nil {
		return Parse(b, nameOrPath)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("profile %s: %w", nameOrPath, err)
	}
	name := strings.TrimSuffix(filepath.Base(nameOrPath), ".yaml")
	if !strings.ContainsRune(nameOrPath, os.PathSeparator) || filepath.Dir(nameOrPath) == "profiles" {
		if b, err := builtin.ReadFile(name + ".yaml"); err == nil {
			return Parse(b, "builtin")
		}
	}
	return nil, fmt.Errorf("profile %q: no such file and no built-in profile of that name (built-in: %s)", nameOrPath, strings.Join(Builtins(), ", "))
}

var yamlLine = regexp.MustCompile(`line (\d+): field (\S+) not found in type \S+`)

// Parse validates and expands a profile. source names it in errors.
func Parse(b []byte, source string) (*Plan, error) {
	label := source
	if source == "builtin" {
		label = "built-in profile"
	}
	var p Profile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("profile %s: empty", label)
		}
		msg := yamlLine.ReplaceAllString(err.Error(), `line $1: unknown field "$2"`)
		msg = strings.TrimPrefix(msg, "yaml: ")
		return nil, fmt.Errorf("profile %s: %s", label, msg)
	}
	plan, err := expand(p, source, string(b))
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", label, err)
	}
	return plan, nil
}

var caseName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func expand(p Profile, source, raw string) (*Plan, error) {
	plan := &Plan{
		Name: p.Name, Description: p.Description, Source: source, YAML: raw,
		AppID: p.AppID, StoreName: p.Store, Repeats: p.Repeats,
	}
	if plan.Name == "" {
		plan.Name = strings.TrimSuffix(filepath.Base(source), ".yaml")
	}
	if plan.AppID == "" {
		plan.AppID = "restorebench"
	}
	if plan.StoreName == "" {
		plan.StoreName = "balances"
	}
	if plan.Repeats == 0 {
		plan.Repeats = 1
	}
	if plan.Repeats < 0 {
		return nil, fmt.Errorf("repeats: %d is negative", plan.Repeats)
	}
	spec, compression, err := FillToSpec(p.Fill)
	if err != nil {
		return nil, err
	}
	plan.Spec, plan.Compression = spec, compression
	plan.Topic = p.Fill.Topic
	if plan.Topic == "" {
		plan.Topic = ChangelogTopic(plan.AppID, plan.StoreName)
	}

	plan.Limits = p.Limits
	plan.Ready = p.Ready == nil || *p.Ready

	base, err := defaultCase()
	if err != nil {
		return nil, err
	}
	if p.Restore.Name != "" {
		return nil, errors.New("restore.name: the restore section is not a case; name cases under cases or matrix")
	}
	base, err = merge(base, p.Restore, "restore")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	if p.Matrix.Kind != 0 {
		cases, err := expandMatrix(base, &p.Matrix, p.Exclude)
		if err != nil {
			return nil, err
		}
		for _, c := range cases {
			if seen[c.Name] {
				return nil, fmt.Errorf("matrix: two combinations are both named %q", c.Name)
			}
			seen[c.Name] = true
			plan.Cases = append(plan.Cases, c)
		}
	} else if len(p.Exclude) > 0 {
		return nil, errors.New("exclude: there is no matrix to exclude from")
	}
	if len(p.Cases) == 0 && len(plan.Cases) == 0 {
		plan.Cases = []Case{base}
		return plan, nil
	}
	for i, cs := range p.Cases {
		field := fmt.Sprintf("cases[%d]", i)
		if cs.Name == "" {
			return nil, fmt.Errorf("%s.name: missing", field)
		}
		if !caseName.MatchString(cs.Name) {
			return nil, fmt.Errorf("%s.name: %q may hold only letters, digits, '.', '_' and '-'", field, cs.Name)
		}
		if seen[cs.Name] {
			return nil, fmt.Errorf("%s.name: %q is used twice", field, cs.Name)
		}
		seen[cs.Name] = true
		c, err := merge(base, cs, field)
		if err != nil {
			return nil, err
		}
		c.Name = cs.Name
		plan.Cases = append(plan.Cases, c)
	}
	return plan, nil
}

// ResolveCase resolves one case's settings over the defaults, with the same
// validation a profile's cases get (for command-line flags).
func ResolveCase(cs CaseSpec) (Case, error) {
	base, err := defaultCase()
	if err != nil {
		return base, err
	}
	c, err := merge(base, cs, "restore")
	if err != nil {
		// Name the flag: restore.batch_records: ... -> --batch-records: ...
		field, rest, _ := strings.Cut(strings.TrimPrefix(err.Error(), "restore."), ":")
		flag := map[string]string{"store": "store-type", "sort_buffer": "sort-buffer"}[field]
		if flag == "" {
			flag = strings.ReplaceAll(field, "_", "-")
		}
		return c, fmt.Errorf("--%s:%s", flag, rest)
	}
	c.Name = "restore"
	return c, nil
}

func defaultCase() (Case, error) {
	base := Case{Name: "default", Strategy: "put", BatchRecords: 1000, Threads: 1, RocksDB: "kstreams", Store: "rocksdb",
		FetchMaxBytes: 52428800, MaxPartitionFetchBytes: 1048576, SortBufferBytes: 64 << 20}
	ro, err := engine.RocksPreset(base.RocksDB)
	base.RocksDBOptions = ro
	return base, err
}

// ChangelogTopic is Kafka Streams' changelog name for a store.
func ChangelogTopic(appID, store string) string { return appID + "-" + store + "-changelog" }

// merge overlays the set fields of cs on base and validates the result.
func merge(base Case, cs CaseSpec, field string) (Case, error) {
	c := base
	ints := []struct {
		name string
		v    int
		dst  *int
	}{
		{"batch_records", cs.BatchRecords, &c.BatchRecords},
		{"threads", cs.Threads, &c.Threads},
		{"max_write_buffer_number", cs.MaxWriteBufferNumber, &c.RocksDBOptions.MaxWriteBufferNumber},
		{"level0_file_num_compaction_trigger", cs.Level0FileNumCompactionTrigger, &c.RocksDBOptions.Level0FileNumCompactionTrigger},
		{"level0_slowdown_writes_trigger", cs.Level0SlowdownWritesTrigger, &c.RocksDBOptions.Level0SlowdownWritesTrigger},
		{"level0_stop_writes_trigger", cs.Level0StopWritesTrigger, &c.RocksDBOptions.Level0StopWritesTrigger},
		{"max_background_jobs", cs.MaxBackgroundJobs, &c.RocksDBOptions.MaxBackgroundJobs},
	}
	if cs.RocksDB != "" && cs.RocksDB != c.RocksDB {
		ro, err := engine.RocksPreset(cs.RocksDB)
		if err != nil {
			return c, fmt.Errorf("%s.rocksdb: %w", field, err)
		}
		c.RocksDB, c.RocksDBOptions = cs.RocksDB, ro
	}
	for _, f := range ints {
		if f.v < 0 {
			return c, fmt.Errorf("%s.%s: %d is negative", field, f.name, f.v)
		}
		if f.v > 0 {
			*f.dst = f.v
		}
	}
	if c.BatchRecords > 1_000_000 {
		return c, fmt.Errorf("%s.batch_records: %d is over 1,000,000", field, c.BatchRecords)
	}
	sizes := []struct {
		name string
		v    string
		set  func(int64) error
	}{
		{"fetch_max_bytes", cs.FetchMaxBytes, func(n int64) error { return setInt32(&c.FetchMaxBytes, n) }},
		{"max_partition_fetch_bytes", cs.MaxPartitionFetchBytes, func(n int64) error { return setInt32(&c.MaxPartitionFetchBytes, n) }},
		{"sort_buffer", cs.SortBuffer, func(n int64) error { c.SortBufferBytes = n; return nil }},
		{"write_buffer_size", cs.WriteBufferSize, func(n int64) error { c.RocksDBOptions.WriteBufferSize = uint64(n); return nil }},
		{"block_cache_size", cs.BlockCacheSize, func(n int64) error { c.RocksDBOptions.BlockCacheBytes = uint64(n); return nil }},
	}
	for _, f := range sizes {
		if f.v == "" {
			continue
		}
		n, err := ParseSize(f.v)
		if err == nil && n == 0 {
			err = fmt.Errorf("size %q is zero", f.v)
		}
		if err == nil {
			err = f.set(n)
		}
		if err != nil {
			return c, fmt.Errorf("%s.%s: %w", field, f.name, err)
		}
	}
	if cs.CompactionStyle != "" {
		if cs.CompactionStyle != "universal" && cs.CompactionStyle != "level" {
			return c, fmt.Errorf("%s.compaction_style: %q is not universal or level", field, cs.CompactionStyle)
		}
		c.RocksDBOptions.CompactionStyle = cs.CompactionStyle
	}
	if cs.Compression != "" {
		switch cs.Compression {
		case "none", "snappy", "lz4", "zstd":
		default:
			return c, fmt.Errorf("%s.compression: %q is not one of none, snappy, lz4, zstd", field, cs.Compression)
		}
		c.RocksDBOptions.Compression = cs.Compression
	}
	if cs.DisableWAL != nil {
		c.RocksDBOptions.DisableWAL = *cs.DisableWAL
	}
	if cs.Store != "" {
		c.Store = cs.Store
	}
	if c.Store != "rocksdb" && c.Store != "memory" {
		return c, fmt.Errorf("%s.store: %q is not rocksdb or memory", field, c.Store)
	}
	if cs.Strategy != "" {
		c.Strategy = cs.Strategy
	}
	switch c.Strategy {
	case "put", "bulk", "ingest":
	case "memory":
		c.Store = "memory"
	default:
		return c, fmt.Errorf("%s.strategy: %q is not one of put, bulk, ingest, memory", field, c.Strategy)
	}
	if c.Store == "memory" && c.Strategy != "put" && c.Strategy != "memory" {
		return c, fmt.Errorf("%s.strategy: %s needs a rocksdb store", field, c.Strategy)
	}
	if c.Store == "memory" {
		c.Strategy = "memory"
	}
	return c, nil
}

func setInt32(dst *int32, n int64) error {
	if n > 1<<31-1 {
		return fmt.Errorf("%d is over 2 GiB", n)
	}
	*dst = int32(n)
	return nil
}

// FillToSpec turns a fill section into a generator spec and compression,
// naming the field at fault on error.
func FillToSpec(f FillSpec) (loadgen.Spec, string, error) {
	spec := loadgen.DefaultSpec()
	if f.Seed != nil {
		spec.Seed = *f.Seed
	}
	if f.Size != "" {
		n, err := ParseSize(f.Size)
		if err != nil {
			return spec, "", fmt.Errorf("fill.size: %w", err)
		}
		if n == 0 {
			return spec, "", fmt.Errorf("fill.size: %q is zero", f.Size)
		}
		spec.TargetBytes = n
	}
	if f.Records < 0 {
		return spec, "", fmt.Errorf("fill.records: %d is negative", f.Records)
	}
	if f.Size != "" && f.Records > 0 {
		return spec, "", errors.New("fill: set size or records, not both")
	}
	spec.Records = f.Records
	if spec.TargetBytes == 0 && spec.Records == 0 {
		return spec, "", errors.New("fill.size: one of fill.size or fill.records is required")
	}
	if f.Keys != 0 {
		spec.Keys = f.Keys
	}
	if f.ValueSize != "" {
		lo, hi, err := ParseValueSize(f.ValueSize)
		if err != nil {
			return spec, "", fmt.Errorf("fill.value_size: %w", err)
		}
		spec.ValueMin, spec.ValueMax = lo, hi
	}
	spec.TombstoneRatio = f.TombstoneRatio
	if f.KeyOrder != "" {
		spec.KeyOrder = loadgen.KeyOrder(f.KeyOrder)
	}
	if f.Partitions != 0 {
		spec.Partitions = f.Partitions
	}
	compression := f.Compression
	if compression == "" {
		compression = "none"
	}
	if _, err := loadgen.CompressionOpt(compression); err != nil {
		return spec, "", fmt.Errorf("fill.%w", err)
	}
	if err := spec.Validate(); err != nil {
		return spec, "", fmt.Errorf("fill.%w", err)
	}
	return spec, compression, nil
}
