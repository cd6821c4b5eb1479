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
)

// ManifestVersion is the version of the fill manifest layout.
const ManifestVersion = 1

// Manifest records a finished fill: what was generated, where, and the state
// a restore of it must produce. A run whose fill parameters match a manifest
// (and whose topic still ends at the recorded offsets) reuses the fill.
type Manifest struct {
	Version     int       `json:"version"`
	Topic       string    `json:"topic"`
	ClusterID   string    `json:"cluster_id"`
	Spec        Spec      `json:"spec"`
	Compression string    `json:"compression"`
	FilledAt    time.Time `json:"filled_at"`
	// DurationSeconds is the time from the first produce to the last ack.
	DurationSeconds float64            `json:"duration_seconds"`
	Totals          FillTotals         `json:"totals"`
	Offsets         []PartitionOffsets `json:"offsets"`
	Expected        []PartitionState   `json:"expected"`
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

// LoadManifest reads a manifest; a missing file returns (nil, nil).
func LoadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("fill manifest %s: %w", path, err)
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
		return false, "generator parameters differ"
	}
	if m.Compression != compression {
		return false, fmt.Sprintf("compression %s differs from %s", m.Compression, compression)
	}
	return true, ""
}
