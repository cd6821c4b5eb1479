package profiles

import (
	"embed"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/boundedread"
	"github.com/restorebench/restorebench/loadgen"
)

//go:embed *.yaml
var builtin embed.FS

// document is a profile's top level as written; its sections are decoded
// onto their defaults separately so every error can name its field and line.
type document struct {
	// Name identifies the profile in results; default: the file name.
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// AppID is Kafka Streams' application.id. Default "restorebench".
	AppID string `yaml:"application_id"`
	// Store is the state store's name. Default "balances".
	Store string `yaml:"store"`
	// Repeats is how many times each case runs. Default 1.
	Repeats int `yaml:"repeats"`
	// Fill is what the changelog holds (config.Fill).
	Fill yaml.Node `yaml:"fill"`
	// Sizes, when set, runs the cold-restore cases once per changelog size
	// (fill.size then must not be set), each size on its own topic: the
	// size sweep a capacity report fits restore time against. Cases of
	// other scenarios run once, at the first size.
	Sizes []config.Size `yaml:"sizes"`
	// StoreKinds, when set, runs every case once per store kind listed
	// (fill.store_kind then must not be set), each kind's changelog on its
	// own application id and topic (<application_id>-<kind>): the same fill
	// section written as each kind's changelog (config.Fill.ForKind), so
	// the kinds restore the same keys, values and tombstones. With Sizes,
	// each kind at every size (a size sweep per kind). "all" is every kind
	// restorebench builds (kindList).
	StoreKinds kindList `yaml:"store_kinds"`
	// Shapes, when set, runs every case once per shape listed: each a
	// name and fill settings laid over the fill section (keys, key_bytes,
	// value_size, tombstone_ratio, size or records, ...), filled on its
	// own application id and topic (<application_id>-<name>): the shape
	// sweep a restore cost per record and per byte is fitted over. Cold
	// cases only; not with sizes or store_kinds.
	Shapes []yaml.Node `yaml:"shapes"`
	// Restore holds the settings every case starts from (config.Case).
	Restore yaml.Node `yaml:"restore"`
	// Matrix expands into one case per combination of its values (cartesian
	// product, in the order written), e.g. strategy: [put, ingest] and
	// batch_records: [100, 1000]. Keys are case fields.
	Matrix yaml.Node `yaml:"matrix"`
	// Exclude drops matrix combinations matching every key/value of an entry.
	Exclude []map[string]string `yaml:"exclude"`
	// Cases are explicit cases, run after the matrix's. With neither matrix
	// nor cases, the run has one case of Restore's settings.
	Cases []yaml.Node `yaml:"cases"`
	// KafkaStreamsVersions runs every kafka-streams case once per version
	// listed (config.KafkaStreamsVersions), as case <name>-<version>, each
	// version's cases of one case next to each other: the same changelog
	// and settings on each version. A version that cannot run a case is
	// refused naming both. Default none: each case runs its own
	// kafka_streams_version (4.4.0 unless it says).
	KafkaStreamsVersions yaml.Node `yaml:"kafka_streams_versions"`
	// Limits measures, per case, fetch-only and write-only restores of the
	// same changelog, and the restore's efficiency against them. Default false.
	Limits bool `yaml:"limits"`
	// Ready measures the phase after the restore until the store can serve
	// (flush, settled compactions, point reads). Default true.
	Ready bool `yaml:"ready"`
	// Interleave runs repeat 1 of every case, then repeat 2 of every case in
	// the reverse order, and so on (ABBA), instead of all repeats of one case
	// before the next: cases compared with each other (the engines in
	// calibrate) then alternate, and drift on the machine or the broker falls
	// on all of them alike. Default false.
	Interleave bool `yaml:"interleave"`
	// HoldCleaner holds Kafka's log cleaner on each fill's changelog while
	// the run restores it: the topic's min.compaction.lag.ms is set to its
	// largest value after the fill and put back when the run ends (Ctrl-C
	// included), so every restore of the run reads the same records, which
	// restores compared with each other need (the engines in calibrate).
	// Default false: restores read the log as the cleaner leaves it, as an
	// application's do. Not with the compaction scenario, which measures
	// the cleaner.
	HoldCleaner bool `yaml:"hold_cleaner"`
	// Placement pins kafka-streams instances to agents by their labels
	// when the run has agents (run --agents): a list of
	// config.PlacementRule. Default none: instances go round robin over
	// the agents.
	Placement yaml.Node `yaml:"placement"`
	// Confirm screens on the model and confirms on Kafka Streams: after the
	// model's cases on a fill, its case with Kafka Streams' defaults and
	// the Confirm fastest of the others that Kafka Streams can apply are
	// restored again on the kafka-streams engine, in the same run,
	// interleaved (as <case>-ks), and each setting's effect is shown on both
	// engines with an agreement verdict (profiles/confirm.go). Default 0:
	// nothing confirmed. run --confirm overrides it.
	Confirm int `yaml:"confirm"`

	// fill bounds the warm cases' changed counts (config.FitWarmToFill).
	fill fillRecords `yaml:"-"`
}

// fillRecords is how many records the (first) fill holds: exact for a fill
// by records, estimated from the mean record size for a fill by size.
type fillRecords struct {
	n     int64
	about bool
}

func fillRecordsOf(spec loadgen.Spec) fillRecords {
	n := spec.EstimatedRecords()
	return fillRecords{n: n, about: spec.Records == 0 && n > 0}
}

// fitWarm bounds case c's warm counts by the fill, locating an error in n.
func (d *document) fitWarm(c *config.Case, n *yaml.Node, path string) error {
	if err := c.FitWarmToFill(d.fill.n, d.fill.about); err != nil {
		return located(err, n, path)
	}
	return nil
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
	// Sizes are the changelog sizes of a size sweep (key+value bytes), in
	// order; empty for a single fill (Spec).
	Sizes []int64
	// KindSpecs are a store-kind sweep's fills, one per kind in the order
	// listed (Spec is the first), at the first of Sizes when both sweep;
	// empty outside one. Cases holds the first kind's cases; CasesFor
	// gives another kind's.
	KindSpecs []loadgen.Spec
	// Shapes are a shape sweep's fills, in the order listed (Spec is the
	// first's); empty outside one.
	Shapes []Shape
	Cases  []config.Case
	// Limits and Ready say which extra phases each case measures.
	Limits bool
	Ready  bool
	// Interleave alternates the cases repeat by repeat (see document).
	Interleave bool
	// HoldCleaner holds the log cleaner on each fill's topic for the run
	// (see document).
	HoldCleaner bool
	// Placement pins instances to agents by label (see document); nil:
	// round robin.
	Placement []config.PlacementRule
	// Confirm is how many model settings each fill confirms on Kafka
	// Streams beside the defaults (see document; SetConfirm); 0: none.
	Confirm int
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
	// A directory of the same name (the repository's capacity/ package
	// beside the capacity profile) is not a profile file: fall through to
	// the built-ins, and name it only when no built-in matches.
	isDir := false
	if fi, err := os.Stat(nameOrPath); err == nil && fi.IsDir() {
		isDir = true
	} else if b, err := boundedread.ReadFile(nameOrPath, boundedread.Profile); err == nil {
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
	if isDir {
		return nil, fmt.Errorf("profile %s: is a directory, not a profile file, and no built-in profile has that name "+
			"(built-in: %s)", nameOrPath, strings.Join(Builtins(), ", "))
	}
	return nil, fmt.Errorf("profile %q: no such file and no built-in profile of that name (built-in: %s)", nameOrPath, strings.Join(Builtins(), ", "))
}

// Parse validates and expands a profile. source names it in errors, which
// all read "profile SOURCE: line N: field.path: what is wrong".
func Parse(b []byte, source string) (*Plan, error) {
	label := source
	if source == "builtin" {
		label = "built-in profile"
	}
	plan, err := parse(b, source)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", label, err)
	}
	return plan, nil
}

func parse(b []byte, source string) (*Plan, error) {
	root, err := decodeDocument(b)
	if err != nil {
		return nil, err
	}
	if len(root.Content) == 0 {
		return nil, errors.New("empty")
	}
	top := root.Content[0]
	doc := document{AppID: config.DefaultAppID, Store: config.DefaultStore, Repeats: 1, Ready: true}
	if err := decodeOnto(top, &doc, ""); err != nil {
		return nil, err
	}
	plan := &Plan{
		Name: doc.Name, Description: doc.Description, Source: source, YAML: string(b),
		AppID: doc.AppID, StoreName: doc.Store, Repeats: doc.Repeats, Limits: doc.Limits, Ready: doc.Ready,
		Interleave: doc.Interleave, HoldCleaner: doc.HoldCleaner,
	}
	if plan.Name == "" {
		plan.Name = nameFromFile(source)
	} else if err := config.CheckName("name", plan.Name); err != nil {
		// The name becomes the run id and so a directory under results/
		// and the state dir: "../../x" would escape them.
		return nil, located(err, top, "")
	}
	if err := checkRepeats(doc.Repeats, top); err != nil {
		return nil, err
	}
	if err := plan.decodeFill(&doc, top); err != nil {
		return nil, err
	}
	base, err := restoreBase(&doc.Restore)
	if err != nil {
		return nil, err
	}
	// Every case restores the store kind the fill writes.
	base.StoreKind = plan.Spec.StoreKind.Of()
	base.Retention = config.Duration(time.Duration(plan.Spec.RetentionMs) * time.Millisecond)
	plan.Cases, err = expandCases(base, &doc, top)
	if err != nil {
		return nil, err
	}
	if plan.Cases, err = sweepVersions(plan.Cases, &doc.KafkaStreamsVersions); err != nil {
		return nil, err
	}
	if err := checkTransactionalFill(plan, &doc.Fill); err != nil {
		return nil, err
	}
	if err := checkFillKind(plan, &doc.Fill); err != nil {
		return nil, err
	}
	if err := checkFillTopic(plan, &doc.Fill); err != nil {
		return nil, err
	}
	if err := checkQueryFill(plan, &doc.Fill); err != nil {
		return nil, err
	}
	if err := checkKindSweep(plan, top); err != nil {
		return nil, err
	}
	if err := checkKeyBytes(plan, &doc.Fill); err != nil {
		return nil, err
	}
	if err := checkShapeCases(plan, top); err != nil {
		return nil, err
	}
	if err := checkHoldCleaner(plan, top); err != nil {
		return nil, err
	}
	if plan.Placement, err = decodePlacement(&doc.Placement, plan.Cases); err != nil {
		return nil, err
	}
	if err := plan.SetConfirm(doc.Confirm); err != nil {
		return nil, located(err, top, "")
	}
	if err := CheckJobs(len(plan.Cases), plan.Fills(), plan.Repeats); err != nil {
		return nil, located(err, top, "")
	}
	return plan, nil
}

// checkHoldCleaner refuses hold_cleaner beside a case whose scenario
// needs the log cleaner running (config.ScenarioDef.NeedsCleaner, as
// compaction's, which measures what the cleaner leaves); top is the
// document, to locate it.
func checkHoldCleaner(p *Plan, top *yaml.Node) error {
	if !p.HoldCleaner {
		return nil
	}
	for _, c := range p.Cases {
		if d, ok := config.ScenarioDefOf(c.Scenario); ok && d.NeedsCleaner != "" {
			return &config.FieldError{Path: "hold_cleaner", Line: lineOf(top, "hold_cleaner"),
				Msg: fmt.Sprintf("case %s runs scenario %s, which %s: it cannot run with the cleaner held; remove hold_cleaner "+
					"or the case", c.Name, c.Scenario, d.NeedsCleaner)}
		}
	}
	return nil
}

// checkTransactionalFill refuses, on a transactional fill (fill is the
// profile's fill section, to locate the error), a case whose scenario does
// not run on one (config.ScenarioDef.TransactionalFill).
func checkTransactionalFill(p *Plan, fill *yaml.Node) error {
	if !p.Spec.Transactional {
		return nil
	}
	for _, c := range p.Cases {
		if d, ok := config.ScenarioDefOf(c.Scenario); ok && !d.TransactionalFill {
			return &config.FieldError{Path: "fill.transactional", Line: lineOf(fill, "transactional"),
				Msg: fmt.Sprintf("case %s runs scenario %s, which does not run on a transactional fill yet (it writes plain "+
					"records to the changelog, or writes through Kafka Streams); scenario cold does", c.Name, c.Scenario)}
		}
	}
	return nil
}

// checkFillKind refuses a case naming another store kind than the fill's
// (fill is the fill section, to locate the error): a store restores the
// changelog its kind writes. Every case starts from the fill's kind and,
// for a window store, its retention (parse sets them on the base case).
func checkFillKind(p *Plan, fill *yaml.Node) error {
	kind := p.Spec.StoreKind.Of()
	for _, c := range p.Cases {
		if c.StoreKind != kind && len(p.KindSpecs) > 0 {
			return &config.FieldError{Path: "store_kinds", Msg: fmt.Sprintf("case %s names store kind %s, but a store-kind "+
				"sweep gives every case each kind in turn: remove the case's store_kind", c.Name, c.StoreKind)}
		}
		if c.StoreKind != kind {
			return &config.FieldError{Path: "fill.store_kind", Line: lineOf(fill, "store_kind"),
				Msg: fmt.Sprintf("case %s restores a %s store, but the fill writes a %s changelog: set fill.store_kind to %s", c.Name, c.StoreKind, kind, c.StoreKind)}
		}
	}
	return nil
}

// checkQueryFill refuses a query load on a fill (any shape's) whose
// answers cannot be checked: each value names its record in its first 8
// bytes, so values need at least 8 (fill is the fill section, to locate
// the error).
func checkQueryFill(p *Plan, fill *yaml.Node) error {
	for _, spec := range p.allSpecs() {
		for _, c := range p.Cases {
			if c.Queries != nil && spec.ValueMin < 8 {
				return &config.FieldError{Path: "fill.value_size", Line: lineOf(fill, "value_size"),
					Msg: fmt.Sprintf("case %s runs queries, whose answers are checked through the record index each value starts "+
						"with: values need at least 8 bytes, not %d", c.Name, spec.ValueMin)}
			}
		}
	}
	return nil
}

// checkFillTopic refuses, on a fill.topic that is not the changelog Kafka
// Streams names after the store (fill is the profile's fill section, to
// locate the error), a kafka-streams case whose scenario restores only that
// changelog (config.ScenarioDef.KafkaStreamsAnyTopic), and a kafka-streams
// case of a store kind beyond key-value, which the driver builds only in
// the kv topology over that changelog.
func checkFillTopic(p *Plan, fill *yaml.Node) error {
	named := config.ChangelogTopic(p.AppID, p.StoreName)
	if p.Topic == named {
		return nil
	}
	for _, c := range p.Cases {
		if c.Engine == config.EngineKafkaStreams && c.StoreKind != config.StoreKeyValue {
			return &config.FieldError{Path: "fill.topic", Line: lineOf(fill, "topic"),
				Msg: fmt.Sprintf("case %s restores a %s store on the kafka-streams engine, which builds it only over %s, the "+
					"changelog Kafka Streams names after it, not %s (any other topic is restored as a KTable's "+
					"key-value store); fill that topic, or run this case on the model engine",
					c.Name, c.StoreKind, named, p.Topic)}
		}
		d, ok := config.ScenarioDefOf(c.Scenario)
		// A failover with queries runs the kv topology over the fill.
		anyTopic := d.KafkaStreamsAnyTopic && !(c.Scenario == config.ScenarioFailover && c.Queries != nil)
		if !ok || c.Engine != config.EngineKafkaStreams || anyTopic {
			continue
		}
		return &config.FieldError{Path: "fill.topic", Line: lineOf(fill, "topic"),
			Msg: fmt.Sprintf("case %s runs scenario %s on the kafka-streams engine, which restores its store only from %s, "+
				"the changelog Kafka Streams names after it, not %s; scenario cold restores any topic there (as "+
				"a KTable's source-topic changelog), or run this case on the model engine",
				c.Name, c.Scenario, named, p.Topic)}
	}
	return nil
}

// checkRepeats checks the profile's repeats (top is its top level, to
// locate an error): positive and at most MaxRepeats.
func checkRepeats(n int, top *yaml.Node) error {
	if n <= 0 {
		return &config.FieldError{Path: "repeats", Line: lineOf(top, "repeats"), Msg: fmt.Sprintf("%d must be positive", n)}
	}
	if n > MaxRepeats {
		return &config.FieldError{Path: "repeats", Line: lineOf(top, "repeats"), Msg: fmt.Sprintf("%d is over %d", n, MaxRepeats)}
	}
	return nil
}

// decodeFill decodes the profile's fill section (with a size sweep's first
// size, when doc has sizes) into the plan's fill spec, sizes and topic (by
// default the changelog of its application id and store), and bounds the
// warm cases by the records it holds (doc.fill). The fill section is
// required: a profile says what the changelog holds.
func (p *Plan) decodeFill(doc *document, top *yaml.Node) error {
	fill := config.DefaultFill()
	if doc.Fill.Kind == 0 {
		return &config.FieldError{Path: "fill", Line: top.Line, Msg: "missing: a profile says what the changelog holds"}
	}
	if err := decodeOnto(&doc.Fill, &fill, "fill"); err != nil {
		return err
	}
	if len(doc.Sizes) > 0 {
		if fill.Size != nil || fill.Records != nil {
			return &config.FieldError{Path: "sizes", Line: lineOf(top, "sizes"), Msg: "a size sweep sets the fill's sizes: remove fill.size and fill.records"}
		}
		sizes, err := sweepSizes(doc.Sizes, top)
		if err != nil {
			return err
		}
		p.Sizes = sizes
		first := doc.Sizes[0]
		fill.Size = &first
	}
	if mappingValue(top, "shapes") != nil { // given, even empty
		shapes, first, err := sweepShapes(doc, fill, top)
		if err != nil {
			return err
		}
		p.Shapes, fill = shapes, first
	}
	if len(doc.StoreKinds) > 0 {
		specs, err := sweepKinds(doc, fill, top)
		if err != nil {
			return err
		}
		p.KindSpecs = specs
		fill = fill.ForKind(doc.StoreKinds[0])
	}
	spec, err := fill.Spec()
	if err != nil {
		return located(err, &doc.Fill, "fill")
	}
	p.Spec, p.Compression, p.Topic = spec, fill.Compression, fill.Topic
	doc.fill = fillRecordsOf(spec)
	if err := config.CheckNames(p.AppID, p.StoreName, p.Topic); err != nil {
		var fe *config.FieldError
		if errors.As(err, &fe) && fe.Path == "topic" && fill.Topic != "" {
			return located(err, &doc.Fill, "fill")
		}
		return located(err, top, "")
	}
	if p.Topic == "" {
		p.Topic = config.ChangelogTopic(p.AppID, p.StoreName)
	}
	return nil
}

// sweepSizes checks a size sweep's sizes (top is the profile's top level,
// to locate an error): at most MaxSizes, each positive and none twice, as
// each size is measured once. It returns them as byte counts, in order.
func sweepSizes(sizes []config.Size, top *yaml.Node) ([]int64, error) {
	if len(sizes) > MaxSizes {
		return nil, &config.FieldError{Path: "sizes", Line: lineOf(top, "sizes"), Msg: fmt.Sprintf("%d sizes is over %d", len(sizes), MaxSizes)}
	}
	var out []int64
	seen := map[config.Size]int{}
	for i, sz := range sizes {
		if sz <= 0 {
			return nil, &config.FieldError{Path: fmt.Sprintf("sizes[%d]", i), Line: lineOf(top, "sizes"), Msg: fmt.Sprintf("%d must be positive", sz)}
		}
		if j, dup := seen[sz]; dup {
			return nil, &config.FieldError{Path: fmt.Sprintf("sizes[%d]", i), Line: lineOf(top, "sizes"),
				Msg: fmt.Sprintf("%d bytes repeats sizes[%d]: each size is measured once (use repeats for more measurements)", int64(sz), j)}
		}
		seen[sz] = i
		out = append(out, int64(sz))
	}
	return out, nil
}

// restoreBase is the case every case starts from: the defaults with the
// profile's restore section n decoded onto them, finalized. The section
// takes no name, as it is not a case of its own.
func restoreBase(n *yaml.Node) (config.Case, error) {
	base := config.DefaultCase()
	if mappingValue(n, "name") != nil {
		return base, &config.FieldError{Path: "restore.name", Line: lineOf(n, "name"), Msg: "the restore section is not a case; name cases under cases or matrix"}
	}
	if err := decodeCase(n, &base, "restore"); err != nil {
		return base, err
	}
	if err := base.Finalize(); err != nil {
		return base, located(err, n, "restore")
	}
	return base, nil
}

// Bounds on what one run may ask for: each job is at least one restore
// (seconds to hours), so a count past these is a typo or an attack, and a
// run would build its schedule, and results, for it in memory.
const (
	// MaxRepeats bounds repeats (the profile's, or run's --repeats).
	MaxRepeats = 100
	// MaxCases bounds a profile's cases after the matrix's expansion.
	MaxCases = 500
	// MaxSizes bounds a size sweep's sizes.
	MaxSizes = 50
	// MaxJobs bounds cases × repeats × sizes: the restores one run makes.
	MaxJobs = 5000
)

// CheckJobs refuses a run of more restores than MaxJobs: cases × repeats
// (× sizes in a size sweep; 0 sizes is a single fill). The error is a
// *config.FieldError naming repeats.
func CheckJobs(cases, sizes, repeats int) error {
	if sizes < 1 {
		sizes = 1
	}
	if repeats > MaxRepeats {
		return &config.FieldError{Path: "repeats", Msg: fmt.Sprintf("%d is over %d", repeats, MaxRepeats)}
	}
	if jobs := cases * sizes * repeats; jobs > MaxJobs {
		what := fmt.Sprintf("%d cases × %d repeats", cases, repeats)
		if sizes > 1 {
			what = fmt.Sprintf("%d cases × %d sizes × %d repeats", cases, sizes, repeats)
		}
		return &config.FieldError{Path: "repeats", Msg: fmt.Sprintf("%s is %d restores, over the %d one run may make", what, jobs, MaxJobs)}
	}
	return nil
}

// nameFromFile is the name of a profile without one: its file name without
// .yaml, with anything a name may not hold replaced by '-', so it is one
// path element like any name.
func nameFromFile(source string) string {
	base := strings.TrimSuffix(filepath.Base(source), ".yaml")
	b := []byte(base)
	for i, c := range b {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		switch {
		case i == 0 && !alnum:
			b[i] = 'x'
		case !alnum && c != '.' && c != '_' && c != '-':
			b[i] = '-'
		}
	}
	if len(b) > config.MaxNameLen {
		b = b[:config.MaxNameLen]
	}
	if len(b) == 0 {
		return "profile"
	}
	return string(b)
}

// expandCases makes the plan's cases: the matrix's combinations, then the
// explicit cases, each over base; or base alone when there are neither.
// top is the profile's top-level mapping, for the lines of errors.
func expandCases(base config.Case, doc *document, top *yaml.Node) ([]config.Case, error) {
	var cases []config.Case
	seen := map[string]bool{}
	if doc.Matrix.Kind != 0 {
		mc, err := expandMatrix(base, &doc.Matrix, doc.Exclude)
		if err != nil {
			return nil, err
		}
		for _, c := range mc {
			if seen[c.Name] {
				return nil, &config.FieldError{Path: "matrix", Line: doc.Matrix.Line, Msg: fmt.Sprintf("two combinations are both named %q", c.Name)}
			}
			seen[c.Name] = true
			// The matrix's warm settings come from the restore section.
			if err := doc.fitWarm(&c, &doc.Restore, "restore"); err != nil {
				return nil, err
			}
			cases = append(cases, c)
		}
	} else if len(doc.Exclude) > 0 {
		return nil, &config.FieldError{Path: "exclude", Msg: "there is no matrix to exclude from"}
	}
	if len(doc.Cases) == 0 && len(cases) == 0 {
		if err := doc.fitWarm(&base, &doc.Restore, "restore"); err != nil {
			return nil, err
		}
		return []config.Case{base}, nil
	}
	if n := len(cases) + len(doc.Cases); n > MaxCases {
		return nil, &config.FieldError{Path: "cases", Line: lineOf(top, "cases"), Msg: fmt.Sprintf("%d cases (matrix and "+
			"cases) is over the %d one run may make", n, MaxCases)}
	}
	for i := range doc.Cases {
		n := &doc.Cases[i]
		path := fmt.Sprintf("cases[%d]", i)
		if mappingValue(n, "name") == nil {
			return nil, &config.FieldError{Path: path + ".name", Line: n.Line, Msg: "missing"}
		}
		c := base.Clone()
		if err := decodeCase(n, &c, path); err != nil {
			return nil, err
		}
		if seen[c.Name] {
			return nil, &config.FieldError{Path: path + ".name", Line: lineOf(n, "name"), Msg: fmt.Sprintf("%q is used twice", c.Name)}
		}
		seen[c.Name] = true
		if err := c.Finalize(); err != nil {
			return nil, located(err, n, path)
		}
		if err := doc.fitWarm(&c, n, path); err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// decodeCase overlays the case settings in mapping n on c. A rocksdb preset
// named there replaces c's RocksDB options before the other keys apply, so
// options written beside it override the preset, not the other way round.
//
// A streams mapping merges onto the one c inherited (a case adds to or
// overrides the restore section's properties); c gets its own copy first, so
// decoding one case never changes another.
func decodeCase(n *yaml.Node, c *config.Case, path string) error {
	c.Streams = maps.Clone(c.Streams)
	c.JVMFlags = slices.Clone(c.JVMFlags)
	if c.Queries != nil { // a case's queries block overlays its own copy
		q := *c.Queries
		c.Queries = &q
	} else if mappingValue(n, "queries") != nil {
		c.Queries = config.DefaultQueryLoad()
	}
	if v := mappingValue(n, "rocksdb"); v != nil && v.Value != c.RocksDBPreset {
		o, ok := config.RocksDBPreset(v.Value)
		if !ok {
			c.RocksDBPreset = v.Value
			return located(c.Validate(), n, path)
		}
		c.RocksDBPreset, c.RocksDB = v.Value, o
	}
	if err := decodeOnto(n, c, path); err != nil {
		return err
	}
	if path == "restore" {
		// The restore section may hold one scenario's settings for the
		// cases that choose it.
		return nil
	}
	for _, d := range config.ScenarioDefs() {
		if d.Settings == nil || d.Name == c.Scenario {
			continue
		}
		if key := d.Settings.Key(); mappingValue(n, key) != nil {
			return &config.FieldError{Path: path + "." + key, Line: lineOf(n, key),
				Msg: fmt.Sprintf("settings of scenario %s, but this case's scenario is %s (add scenario: %s, or remove them)", d.Name, c.Scenario, d.Name)}
		}
	}
	return nil
}
