package ksdriver

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ProcessFile is the file in <state.dir>/<application.id> where Kafka
// Streams keeps its process id (StateDirectory.PROCESS_FILE_NAME), so a
// restart on the same state directory keeps it.
const ProcessFile = "kafka-streams-process-metadata"

// ReadProcessID returns the process id (a UUID) Kafka Streams wrote for
// application appID under stateDir: the id the classic assignor sorts
// clients by. It exists once the instance has constructed its KafkaStreams
// client, which happens before its hello.
func ReadProcessID(stateDir, appID string) (string, error) {
	b, err := os.ReadFile(filepath.Join(stateDir, appID, ProcessFile))
	if err != nil {
		return "", err
	}
	var f struct {
		ProcessID string `json:"processId"`
	}
	if err := json.Unmarshal(b, &f); err != nil || f.ProcessID == "" {
		return "", fmt.Errorf("%s: no processId in %q", ProcessFile, b)
	}
	return f.ProcessID, nil
}

// CompareProcessIDs orders two process ids as Kafka Streams does
// (ProcessId.compareTo, i.e. java.util.UUID.compareTo): by the most
// significant 64 bits, then the least, each compared as a SIGNED long. So
// "8..." sorts before "0...": not the order of the strings. Ids that are
// not UUIDs compare as strings, after every UUID.
func CompareProcessIDs(a, b string) int {
	ha, la, oka := uuidHalves(a)
	hb, lb, okb := uuidHalves(b)
	switch {
	case !oka || !okb:
		if oka != okb {
			if oka {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	case ha != hb:
		return cmpInt64(ha, hb)
	}
	return cmpInt64(la, lb)
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// uuidHalves parses a canonical UUID into its two signed 64-bit halves.
func uuidHalves(s string) (hi, lo int64, ok bool) {
	raw, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil || len(raw) != 16 {
		return 0, 0, false
	}
	return int64(binary.BigEndian.Uint64(raw[:8])), int64(binary.BigEndian.Uint64(raw[8:])), true
}
