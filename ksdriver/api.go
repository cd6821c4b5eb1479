package ksdriver

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// EvAPI is the event naming the address the driver's API layer listens on
// (PropAPIPort), sent after hello and before Kafka Streams starts.
const EvAPI = "api"

// API is the api event: the instance's API layer listens on Host:Port,
// which is also its application.server, the address
// KafkaStreams.queryMetadataForKey names it by.
type API struct {
	Meta
	Host string `json:"host"`
	Port int    `json:"port"`
}

// Addr is host:port.
func (a *API) Addr() string { return net.JoinHostPort(a.Host, strconv.Itoa(a.Port)) }

// APIAddr is the address the instance's API layer listens on, "" when it
// has none (PropAPIPort unset) or has not said yet.
func (in *Instance) APIAddr() string {
	for _, e := range in.Events() {
		if a, ok := e.(*API); ok {
			return a.Addr()
		}
	}
	return ""
}

// Copies an answer can come from.
const (
	CopyActive  = "active"
	CopyStandby = "standby"
)

// Answer is the API layer's reply to one lookup (kstreams/PROTOCOL.md,
// "The API layer"): a value (or none) from one instance's copy of the
// key's store partition, or a refusal.
type Answer struct {
	// Status is the HTTP status: 200 answered, 503 refused.
	Status int `json:"-"`
	// Refused is set with Reason when no copy could serve: a restoring
	// store without stale reads, no metadata during a rebalance, an owner
	// that could not be reached.
	Refused bool   `json:"refused"`
	Reason  string `json:"reason"`
	// Found says whether the store holds the key; Value is its value, hex.
	Found bool   `json:"found"`
	Value string `json:"value"`
	// Instance answered, from its Copy (CopyActive or CopyStandby) of
	// Partition, whose State is restoring, restored, standby, suspended or
	// unknown and whose last batch reached changelog Offset (-1: unknown).
	Instance  string `json:"instance"`
	Copy      string `json:"copy"`
	State     string `json:"state"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	// ForwardedBy is the instance that was asked and forwarded the lookup
	// to Instance, the owner queryMetadataForKey named; "" when the
	// instance asked answered itself.
	ForwardedBy string `json:"forwarded_by"`
	// Retries and WaitedMs say how often and how long the API layer retried
	// a stale lookup no copy could serve yet (PropAPIRetryMs) before this
	// answer or refusal; 0 when it came at once.
	Retries  int   `json:"retries"`
	WaitedMs int64 `json:"waited_ms"`
}

// Bytes is the value's bytes.
func (a *Answer) Bytes() ([]byte, error) { return hex.DecodeString(a.Value) }

// DefaultLookupTimeout bounds one lookup, forwarding included (the driver
// gives a forward 2 s).
const DefaultLookupTimeout = 5 * time.Second

// Lookup asks the API layer at addr for key, stale reads allowed when
// stale. An answered or refused lookup is an Answer; an error is one that
// got neither (the instance unreachable, a timeout, a malformed reply).
func Lookup(ctx context.Context, c *http.Client, addr string, key []byte, stale bool) (Answer, error) {
	return LookupAt(ctx, c, addr, key, stale, false)
}

// directMarker is the forwarded marker a direct lookup carries: the API
// layer never forwards a lookup with one (kstreams/PROTOCOL.md), so the
// instance asked answers from its own copy or refuses.
const directMarker = "forwarded=client"

// LookupAt is Lookup, and with direct set asks the instance at addr not
// to forward: a client that routes by the metadata itself asks the owner
// it found and takes a refusal from a wrong guess as it comes.
func LookupAt(ctx context.Context, c *http.Client, addr string, key []byte, stale, direct bool) (Answer, error) {
	url := "http://" + addr + "/kv/" + hex.EncodeToString(key)
	sep := "?"
	if stale {
		url += sep + "stale=true"
		sep = "&"
	}
	if direct {
		url += sep + directMarker
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Answer{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return Answer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return Answer{}, err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusServiceUnavailable {
		return Answer{}, fmt.Errorf("lookup at %s: HTTP %d: %s", addr, resp.StatusCode, body)
	}
	a := Answer{Status: resp.StatusCode}
	if err := json.Unmarshal(body, &a); err != nil {
		return Answer{}, fmt.Errorf("lookup at %s: %w", addr, err)
	}
	a.Refused = a.Refused || resp.StatusCode != http.StatusOK
	return a, nil
}

// AwaitAPI waits for the instance's api event and returns the address it
// names.
func (in *Instance) AwaitAPI(ctx context.Context) (string, error) {
	e, _, err := in.WaitFor(ctx, 0, func(e Event) bool { return e.Head().Ev == EvAPI })
	if err != nil {
		return "", fmt.Errorf("kafka-streams instance %s: waiting for its API layer: %w", in.opts.ID, err)
	}
	return e.(*API).Addr(), nil
}
