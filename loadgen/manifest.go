package loadgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/restorebench/restorebench/internal/atomicfile"
	"github.com/restorebench/restorebench/internal/boundedread"
)

// ManifestVersion is the version of the fill manifest layout.
const ManifestVersion = 1

// Manifest records a finished fill: which spec was written to which topic,
// when, and how long it took. It is a claim, not evidence: before a fill is
// reused the broker must show it holds it, and the expected state is always
// derived from the spec, never read from here (files can be edited).
type Manifest struct {
	Version     int       `json:"version"`
	Topic       string    `json:"topic"`
	ClusterID   string    `json:"cluster_id"`
	Spec        Spec      `json:"spec"`
	Compression string    `json:"compression"`
	FilledAt    time.Time `json:"filled_at"`
	// DurationSeconds is the time from the first produce to the last ack.
	DurationSeconds float64            `json:"duration_seconds"`
	Offsets         []PartitionOffsets `json:"offsets"`
	// Changes are what restorebench's own scenarios did to the topic after
	// the fill (warm restarts append records, a fallback test deletes a log
	// prefix). A changed fill is never reused as the fill: the next run
	// refills it, without --refill, once the broker shows the topic holds
	// exactly the fill plus these changes. Nil when unchanged.
	Changes *Changes `json:"changes,omitempty"`
}

// Changes are a scenario's changes to a filled topic.
type Changes struct {
	// By names the scenario that made them.
	By string `json:"by"`
	// Appended is how many records of the fill's generator, continued,
	// were written after the fill's own.
	Appended int64 `json:"appended,omitempty"`
	// Starts are partitions' log start offsets after records below them
	// were deleted.
	Starts map[int32]int64 `json:"starts,omitempty"`
	// Unsettled is set while a change is under way, and stays set when it
	// was interrupted or went through Kafka Streams (records written to an
	// input topic reach the changelog only as far as the application
	// processed them): what the topic holds is then the fill plus part of
	// the changes, not exactly what Appended says. Such a topic is
	// restorebench's own, changed by its own scenario: the next fill
	// refills it without asking.
	Unsettled bool `json:"unsettled,omitempty"`
}

// Extended is spec continued by n more records of its generator: a Records
// spec of total+n records, where total is what spec itself writes.
func Extended(spec Spec, total, n int64) Spec {
	spec.TargetBytes, spec.Records = 0, total+n
	return spec
}

// PartitionOffsets is a partition's log start and end offsets.
type PartitionOffsets struct {
	Partition int32 `json:"partition"`
	Start     int64 `json:"start"`
	End       int64 `json:"end"`
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// ManifestPath is where the manifest of topic on cluster clusterID lives
// under the tool's data directory.
func ManifestPath(dataDir, clusterID, topic string) string {
	return filepath.Join(dataDir, "fills", unsafeName.ReplaceAllString(clusterID, "_"), unsafeName.ReplaceAllString(topic, "_")+".json")
}

// Save writes the manifest atomically (temporary file, then rename).
func (m *Manifest) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}

// RemoveManifest deletes the manifest at path; a missing one is no error.
func RemoveManifest(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("fill manifest %s: %w", path, err)
	}
	return nil
}

// LoadManifest reads a manifest; a missing file returns (nil, nil). A file
// that does not parse is an error naming it.
func LoadManifest(path string) (*Manifest, error) {
	b, err := boundedread.ReadFile(path, boundedread.Manifest)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("fill manifest %s is broken (%v)", path, err)
	}
	if m.Version != ManifestVersion {
		return nil, fmt.Errorf("fill manifest %s: version %d, this build reads %d", path, m.Version, ManifestVersion)
	}
	return &m, nil
}

// Matches reports whether the manifest describes a fill of spec with the
// given compression, and if not, why.
func (m *Manifest) Matches(spec Spec, compression string) (bool, string) {
	if m.Spec != spec {
		a, b := m.Spec, spec
		a.Transactional, a.TransactionRecords, a.AbortRatio = false, 0, 0
		b.Transactional, b.TransactionRecords, b.AbortRatio = false, 0, 0
		if a == b {
			return false, fmt.Sprintf("transactional settings differ (%s, not %s)", describeTxn(m.Spec), describeTxn(spec))
		}
		return false, "generator parameters differ"
	}
	if m.Compression != compression {
		return false, fmt.Sprintf("compression %s differs from %s", m.Compression, compression)
	}
	return true, ""
}

// describeTxn names a spec's transactional settings, for messages.
func describeTxn(s Spec) string {
	if !s.Transactional {
		return "a plain fill"
	}
	return fmt.Sprintf("transactions of %d records, %v aborted", s.TransactionRecords, s.AbortRatio)
}
