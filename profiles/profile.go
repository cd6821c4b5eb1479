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

	"github.com/restorebench/restorebench/loadgen"
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
	// Cases are the restore cases; none means one case of Restore's settings.
	Cases []CaseSpec `yaml:"cases"`
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
	// BatchRecords is the restore consumer's max.poll.records. Default 1000.
	BatchRecords int `yaml:"batch_records"`
	// Threads is the number of restore consumers. Default 1.
	Threads int `yaml:"threads"`
	// RocksDB is the RocksDB option preset. Default "kstreams".
	RocksDB string `yaml:"rocksdb"`
	// Store is "rocksdb" (default) or "memory".
	Store string `yaml:"store"`
}

// Case is one expanded restore case, with every setting resolved.
type Case struct {
	Name         string
	BatchRecords int
	Threads      int
	RocksDB      string
	Store        string
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

	base := Case{Name: "default", BatchRecords: 1000, Threads: 1, RocksDB: "kstreams", Store: "rocksdb"}
	base, err = merge(base, p.Restore, "restore")
	if err != nil {
		return nil, err
	}
	if len(p.Cases) == 0 {
		plan.Cases = []Case{base}
		return plan, nil
	}
	seen := map[string]bool{}
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

// ChangelogTopic is Kafka Streams' changelog name for a store.
func ChangelogTopic(appID, store string) string { return appID + "-" + store + "-changelog" }

// merge overlays the set fields of cs on base and validates the result.
func merge(base Case, cs CaseSpec, field string) (Case, error) {
	c := base
	if cs.BatchRecords < 0 {
		return c, fmt.Errorf("%s.batch_records: %d is negative", field, cs.BatchRecords)
	}
	if cs.BatchRecords > 0 {
		c.BatchRecords = cs.BatchRecords
	}
	if cs.Threads < 0 {
		return c, fmt.Errorf("%s.threads: %d is negative", field, cs.Threads)
	}
	if cs.Threads > 0 {
		c.Threads = cs.Threads
	}
	if cs.RocksDB != "" {
		c.RocksDB = cs.RocksDB
	}
	if c.RocksDB != "kstreams" {
		return c, fmt.Errorf("%s.rocksdb: preset %q is unknown (known: kstreams)", field, c.RocksDB)
	}
	if cs.Store != "" {
		c.Store = cs.Store
	}
	if c.Store != "rocksdb" && c.Store != "memory" {
		return c, fmt.Errorf("%s.store: %q is not rocksdb or memory", field, c.Store)
	}
	return c, nil
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
