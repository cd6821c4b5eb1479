package ksdriver

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// RangeAnswer is the API layer's answer to a range query (kstreams/
// PROTOCOL.md, "The API layer"): every entry of the store with a key from
// the range's first to its last, both included, over all partitions. A
// range some partition of which no copy could serve is refused whole.
type RangeAnswer struct {
	// Status is the HTTP status: 200 answered, 503 refused, 429 refused
	// because the instance already gathers as many ranges as it takes at
	// once (PropAPIRangeConcurrency).
	Status int `json:"-"`
	// Refused is set with Reason when some partition had no copy that
	// could serve, or the instance had no room for another range;
	// Partitions are then those gathered before it gave up.
	Refused bool   `json:"refused"`
	Reason  string `json:"reason"`
	// Instance is the instance asked, which gathered the range.
	Instance string `json:"instance"`
	// Partitions are the store partitions the entries cover.
	Partitions []int32 `json:"partitions"`
	// Entries are the range's entries, each from the copy that gave it.
	Entries []RangeEntry `json:"entries"`
	// Copies name, per partition, the copy that gave its entries.
	Copies []RangeCopy `json:"copies"`
	// Retries and WaitedMs: as Answer's.
	Retries  int   `json:"retries"`
	WaitedMs int64 `json:"waited_ms"`
}

// RangeEntry is one entry of a range: Key and Value in hex (a
// timestamped key-value store's value with its 8-byte timestamp before
// it), from Partition.
type RangeEntry struct {
	Key       string `json:"key"`
	Value     string `json:"value"`
	Partition int32  `json:"partition"`
}

// RangeCopy is the copy of Partition a range's entries of it came from:
// Instance's Copy (CopyActive or CopyStandby), its State and Offset as an
// Answer's.
type RangeCopy struct {
	Partition int32  `json:"partition"`
	Instance  string `json:"instance"`
	Copy      string `json:"copy"`
	State     string `json:"state"`
	Offset    int64  `json:"offset"`
}

// Range asks the API layer at addr for the entries with keys from from to
// to, both included, stale reads allowed when stale. An answered or
// refused range is a RangeAnswer; an error is one that got neither, a
// range over the instance's caps (HTTP 400, PropAPIRangeMaxEntries and
// PropAPIRangeMaxBytes) among them.
func Range(ctx context.Context, c *http.Client, addr string, from, to []byte, stale bool) (RangeAnswer, error) {
	url := "http://" + addr + "/range/" + hex.EncodeToString(from) + "/" + hex.EncodeToString(to)
	if stale {
		url += "?stale=true"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return RangeAnswer{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return RangeAnswer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return RangeAnswer{}, err
	}
	switch resp.StatusCode {
	case http.StatusOK, http.StatusServiceUnavailable, http.StatusTooManyRequests:
	default:
		return RangeAnswer{}, fmt.Errorf("range at %s: HTTP %d: %s", addr, resp.StatusCode, body)
	}
	a := RangeAnswer{Status: resp.StatusCode}
	if err := json.Unmarshal(body, &a); err != nil {
		return RangeAnswer{}, fmt.Errorf("range at %s: %w", addr, err)
	}
	a.Refused = a.Refused || resp.StatusCode != http.StatusOK
	return a, nil
}
