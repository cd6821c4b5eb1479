package agent

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/internal/boundedread"
)

// How records on the control and events topics are signed.
//
// Kafka carries the messages between a coordinator and its agents; it does
// not vouch for them: whoever the cluster's ACLs let produce to
// ControlTopic could otherwise command every agent. So every record a
// coordinator or an agent writes carries four headers, and every record one
// of them acts on must verify:
//
//	rb-kid    the key's id (KeyID): which key signed it, never the key
//	rb-ts     the sender's wall clock, Unix milliseconds
//	rb-nonce  <sender session>-<counter>: a random session id per process
//	          and a counter that grows by one per record it signs
//	rb-mac    HMAC-SHA256 under the key, hex, over signingInput: a version
//	          tag, kid, ts, nonce, the topic, the record key and the value,
//	          each length-prefixed so no two records share an input
//
// A reader refuses a record without the headers (unsigned), under another
// key id (unknown key), whose MAC does not verify (bad signature), whose
// timestamp is more than MaxSkew from its own clock (stale), or whose nonce
// it has already accepted (replayed): each refusal is counted, and logged
// the first time for each reason. HMAC-SHA256 is the standard MAC for a
// key shared by both ends (RFC 2104); a per-session counter, checked
// against a sliding window as IPsec's anti-replay does (RFC 4303 §3.4.3),
// keeps the replay state a few hundred bytes per sender and stream.
const (
	headerKeyID = "rb-kid"
	headerTime  = "rb-ts"
	headerNonce = "rb-nonce"
	headerMAC   = "rb-mac"
	// signVersion tags the signing input: a future scheme signs a
	// different input, so no signature carries over.
	signVersion = "restorebench-sign-v1"
)

// MinKeyBytes is the shortest key accepted: 256 bits, HMAC-SHA256's
// output size (RFC 2104 §3: shorter keys weaken the MAC).
const MinKeyBytes = 32

// DefaultMaxSkew is how far a signed record's timestamp may lie from the
// reader's clock, either way, before it is refused as stale: room for
// hosts' clocks under NTP and a busy broker, while a captured record
// replayed later than this is refused without any memory of it.
const DefaultMaxSkew = 2 * time.Minute

// replayWindow is how many counters behind the newest one of a stream a
// record may arrive and still be accepted once (records of one stream
// reach a reader in the order they were signed: sign and enqueue happen
// under one lock, and one key maps to one partition; the window is slack).
const replayWindow = 1024

// maxStreams bounds the replay state a reader keeps: distinct (sender
// session, topic, record key) streams heard within twice MaxSkew. Only
// records that verify make one, so only holders of the key can fill it.
const maxStreams = 65536

// Key is the secret a coordinator and its agents share to sign and verify
// every control and events record (a file, or a Kubernetes Secret mounted
// as one). It never leaves the process: records carry its id only.
type Key struct {
	id     string
	secret []byte
}

// NewKey is a key from its secret bytes (at least MinKeyBytes).
func NewKey(secret []byte) (*Key, error) {
	if len(secret) < MinKeyBytes {
		return nil, fmt.Errorf("a signing key must be at least %d bytes, this one has %d: make one with `restorebench agent keygen FILE`", MinKeyBytes, len(secret))
	}
	if why := weakKey(secret); why != "" {
		return nil, fmt.Errorf("a signing key must be random, and this one is %s: make one with `restorebench agent keygen FILE`", why)
	}
	sum := sha256.Sum256(append([]byte("restorebench key id\x00"), secret...))
	return &Key{id: hex.EncodeToString(sum[:8]), secret: bytes.Clone(secret)}, nil
}

// LoadKey reads a key file: its contents with surrounding white space
// trimmed are the key (what KeyFileContents writes is base64 text, and a
// Kubernetes Secret's file is the same bytes).
func LoadKey(path string) (*Key, error) {
	if path == "" {
		return nil, errors.New("no signing key file named")
	}
	// Stat first (it opens nothing, so a FIFO cannot block), then read
	// bounded: a device (/dev/zero) or a huge file is one error, not a
	// read without end.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	if fi.Mode().IsRegular() {
		if err := checkKeyFileMode(path, fi); err != nil {
			return nil, err
		}
	}
	b, err := boundedread.ReadFile(path, boundedread.Secret)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	k, err := NewKey(bytes.TrimSpace(b))
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	return k, nil
}

// checkKeyFileMode refuses a key file that users other than its owner may
// read or write, as ssh refuses such a private key and PostgreSQL its
// ssl_key_file: no permission for others, ever; read (never write) for
// the group only when root owns the file, the way a Kubernetes Secret
// volume mounts its files (root:<fsGroup>, the chart's defaultMode 0440)
// and an administrator gives a service its key (root:restorebench 0640).
func checkKeyFileMode(path string, fi fs.FileInfo) error {
	allowed := fs.FileMode(0o700)
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == 0 {
		allowed = 0o740
	}
	perm := fi.Mode().Perm()
	if perm&^allowed == 0 {
		return nil
	}
	who := "others"
	if perm&0o007 == 0 {
		who = "its group"
	}
	return fmt.Errorf("signing key %s: mode %#o lets %s read or write it, and whoever reads it can command every agent: "+
		"chmod 600 %s (group read is accepted only on a file root owns, as a Kubernetes Secret mounts it)", path, perm, who, path)
}

// Weak keys: a key is refused when its bytes are too few to be random.
// keygen's keys (base64 of 32 random bytes: some 30 distinct bytes, about
// 200 bits by the estimate) and hex keys (openssl rand -hex 32) pass with
// a wide margin.
const (
	// minKeyDistinct is the fewest distinct bytes a key may have (32 × 'a' has 1).
	minKeyDistinct = 8
	// minKeyEntropyBits is the least a key's bytes may carry by their
	// frequencies (Shannon entropy per byte × length): a short alphabet
	// repeated falls below it.
	minKeyEntropyBits = 96
)

// weakKey says why secret cannot be a random key, or "" when nothing does:
// too few distinct bytes, a short pattern repeated, one step between most
// neighbouring bytes ("abcdef…"), or too little entropy by frequency.
func weakKey(secret []byte) string {
	var counts [256]int
	distinct := 0
	for _, c := range secret {
		if counts[c] == 0 {
			distinct++
		}
		counts[c]++
	}
	if distinct < minKeyDistinct {
		return fmt.Sprintf("made of %d distinct bytes (at least %d)", distinct, minKeyDistinct)
	}
	if p := keyPeriod(secret); p > 0 {
		return fmt.Sprintf("a pattern of %d bytes repeated", p)
	}
	if keySteps(secret) {
		return "a sequence (most neighbouring bytes one step apart)"
	}
	bits := 0.0
	for _, n := range counts {
		if n > 0 {
			p := float64(n) / float64(len(secret))
			bits -= float64(n) * math.Log2(p)
		}
	}
	if bits < minKeyEntropyBits {
		return fmt.Sprintf("about %.0f bits by its bytes' frequencies (at least %d)", bits, minKeyEntropyBits)
	}
	return ""
}

// keyPeriod is the length of the shortest pattern secret repeats (its
// last copy perhaps cut short), when that is at most half of it; else 0.
func keyPeriod(secret []byte) int {
	for p := 1; p <= len(secret)/2; p++ {
		if bytes.Equal(secret[p:], secret[:len(secret)-p]) {
			return p
		}
	}
	return 0
}

// keySteps reports whether more than half of the differences between
// neighbouring bytes of secret are one and the same ("abcdefgh…",
// "97531…"): random bytes share one difference about one time in 256.
func keySteps(secret []byte) bool {
	var diffs [256]int
	for i := 1; i < len(secret); i++ {
		d := secret[i] - secret[i-1]
		diffs[d]++
		if 2*diffs[d] > len(secret)-1 {
			return true
		}
	}
	return false
}

// KeyFileContents is a new random key as a key file holds it: 32 random
// bytes, base64, and a newline.
func KeyFileContents() []byte {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return []byte(base64.StdEncoding.EncodeToString(raw) + "\n")
}

// WriteKeyFile writes a new key to path, readable by its owner only; an
// existing file is never overwritten (it may be the key agents run with).
func WriteKeyFile(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists: a key file is never overwritten (remove it first if you mean to replace the key every agent uses)", path)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(KeyFileContents()); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// ID is the key's id: the first 8 bytes of a SHA-256 of it, in hex. It
// names the key in records and logs without revealing it.
func (k *Key) ID() string { return k.id }

// String names the key by its id only, so a key printed by mistake shows
// no secret.
func (k *Key) String() string { return "key " + k.id }

// mac is the record's MAC under k.
func (k *Key) mac(kid, ts, nonce, topic string, key, value []byte) []byte {
	h := hmac.New(sha256.New, k.secret)
	for _, part := range [][]byte{[]byte(signVersion), []byte(kid), []byte(ts), []byte(nonce), []byte(topic), key, value} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	return h.Sum(nil)
}

// signer stamps records with a sender's headers. A nil key (--insecure)
// signs nothing.
type signer struct {
	key     *Key
	session string
	mu      sync.Mutex
	counter uint64
}

func newSigner(key *Key) *signer {
	sess := make([]byte, 12)
	if _, err := rand.Read(sess); err != nil {
		panic(err)
	}
	return &signer{key: key, session: hex.EncodeToString(sess)}
}

// sign adds r's headers. The caller holds s.mu from sign until the record
// is handed to the client, so records reach the log in counter order.
func (s *signer) sign(r *kgo.Record) {
	if s.key == nil {
		return
	}
	s.counter++
	ts := strconv.FormatInt(time.Now().UnixMilli(), 10)
	nonce := s.session + "-" + strconv.FormatUint(s.counter, 10)
	mac := s.key.mac(s.key.id, ts, nonce, r.Topic, r.Key, r.Value)
	r.Headers = append(r.Headers[:0],
		kgo.RecordHeader{Key: headerKeyID, Value: []byte(s.key.id)},
		kgo.RecordHeader{Key: headerTime, Value: []byte(ts)},
		kgo.RecordHeader{Key: headerNonce, Value: []byte(nonce)},
		kgo.RecordHeader{Key: headerMAC, Value: []byte(hex.EncodeToString(mac))})
}

// own says whether r is a record this signer wrote (its session's nonce):
// a reader passes its own records over unverified, as it acts on none of
// them; a forged record claiming the session is passed over too, unread.
func (s *signer) own(r *kgo.Record) bool {
	if s.key == nil {
		return false
	}
	for _, h := range r.Headers {
		if h.Key == headerNonce {
			v := string(h.Value)
			return len(v) > len(s.session) && v[len(s.session)] == '-' && v[:len(s.session)] == s.session
		}
	}
	return false
}

// Refusal reasons, as counted (RefusedCounts) and logged.
const (
	RefusedUnsigned   = "unsigned"
	RefusedUnknownKey = "unknown key"
	RefusedBadMAC     = "bad signature"
	RefusedStale      = "stale"
	RefusedReplayed   = "replayed"
	RefusedTooMany    = "too many senders"
)

// refusal is why a record was refused.
type refusal struct {
	reason string
	detail string
}

func (r *refusal) Error() string { return r.reason + ": " + r.detail }

// verifier checks the records a coordinator or an agent acts on. A nil
// key (--insecure) accepts every record, signed or not.
type verifier struct {
	key     *Key
	maxSkew time.Duration
	now     func() time.Time
	logf    func(format string, args ...any)
	who     string // "agent a1", "coordinator": for its log lines
	// notBefore, when set, is when the reader's process started: a record
	// signed before it is refused as stale (see check).
	notBefore time.Time

	mu      sync.Mutex
	streams map[streamID]*replayState
	pruned  time.Time
	refused map[string]int64
}

// streamID is one sender session's records on one topic under one key:
// they arrive in the order they were signed.
type streamID struct {
	session, topic, key string
}

// replayState is the anti-replay window of one stream: the highest
// counter accepted and which of the replayWindow below it were.
type replayState struct {
	top  uint64
	seen [replayWindow / 64]uint64
	last time.Time
}

func newVerifier(key *Key, maxSkew time.Duration, who string, logf func(string, ...any)) *verifier {
	if maxSkew <= 0 {
		maxSkew = DefaultMaxSkew
	}
	return &verifier{key: key, maxSkew: maxSkew, now: time.Now, logf: logf, who: who, streams: map[streamID]*replayState{}, refused: map[string]int64{}}
}

// accept says whether r verifies; a refused record is counted, and the
// first of each reason logged with what it was.
func (v *verifier) accept(r *kgo.Record) bool {
	if v.key == nil {
		return true
	}
	err := v.check(r)
	if err == nil {
		return true
	}
	var rf *refusal
	if !errors.As(err, &rf) {
		rf = &refusal{reason: RefusedBadMAC, detail: err.Error()}
	}
	v.mu.Lock()
	v.refused[rf.reason]++
	first := v.refused[rf.reason] == 1
	v.mu.Unlock()
	if first {
		v.logf("%s: refused a record on %s keyed %.60q: %s (further %s records are counted, not logged)", v.who, r.Topic, r.Key, rf, rf.reason)
	}
	return false
}

// check verifies r's headers, MAC, freshness and nonce.
func (v *verifier) check(r *kgo.Record) error {
	var kid, ts, nonce, mac string
	for _, h := range r.Headers {
		switch h.Key {
		case headerKeyID:
			kid = string(h.Value)
		case headerTime:
			ts = string(h.Value)
		case headerNonce:
			nonce = string(h.Value)
		case headerMAC:
			mac = string(h.Value)
		}
	}
	if kid == "" || ts == "" || nonce == "" || mac == "" {
		return &refusal{RefusedUnsigned, "no signature headers (a sender without the key, or one run with --insecure)"}
	}
	if kid != v.key.id {
		return &refusal{RefusedUnknownKey, fmt.Sprintf("signed with key %.20q, this process has key %s", kid, v.key.id)}
	}
	got, err := hex.DecodeString(mac)
	if err != nil || !hmac.Equal(got, v.key.mac(kid, ts, nonce, r.Topic, r.Key, r.Value)) {
		return &refusal{RefusedBadMAC, "the MAC does not match the record"}
	}
	ms, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return &refusal{RefusedBadMAC, "its timestamp is not a number"}
	}
	now := v.now()
	if skew := now.Sub(time.UnixMilli(ms)); skew > v.maxSkew || skew < -v.maxSkew {
		return &refusal{RefusedStale, fmt.Sprintf("signed %s from this host's clock, more than the %s allowed", skew.Round(time.Millisecond), v.maxSkew)}
	}
	// Replay state lives in memory: a process that restarted has none, so
	// a record captured before the restart would be fresh to it for as
	// long as its timestamp is. A record signed before this process
	// started was meant for an earlier one (or comes from a sender whose
	// clock is behind this host's, whose commands are then refused until
	// its clock passes this start; a coordinator resends every 5 s). A
	// sender whose clock is ahead leaves that much of a window: records
	// signed within its lead before the restart still pass.
	if !v.notBefore.IsZero() && ms < v.notBefore.UnixMilli() {
		return &refusal{RefusedStale, fmt.Sprintf("signed %s before this process started: a record for an earlier process "+
			"under its name, replayed (or the sender's clock is that far behind this host's)", v.notBefore.Sub(time.UnixMilli(ms)).Round(time.Millisecond))}
	}
	sess, ctr, ok := strings.Cut(nonce, "-")
	n, err := strconv.ParseUint(ctr, 10, 64)
	if !ok || err != nil || n == 0 {
		return &refusal{RefusedBadMAC, fmt.Sprintf("nonce %.40q is not <session>-<counter>", nonce)}
	}
	return v.fresh(streamID{sess, r.Topic, string(r.Key)}, n, now)
}

// fresh accepts counter n of stream id once, within the replay window.
func (v *verifier) fresh(id streamID, n uint64, now time.Time) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if now.Sub(v.pruned) > v.maxSkew {
		for k, s := range v.streams {
			if now.Sub(s.last) > 2*v.maxSkew {
				delete(v.streams, k)
			}
		}
		v.pruned = now
	}
	s := v.streams[id]
	if s == nil {
		if len(v.streams) >= maxStreams {
			return &refusal{RefusedTooMany, fmt.Sprintf("%d sender streams heard within %s", len(v.streams), 2*v.maxSkew)}
		}
		s = &replayState{}
		v.streams[id] = s
	}
	switch {
	case n > s.top:
		s.shift(n - s.top)
		s.top = n
		s.mark(0)
	case s.top-n >= replayWindow:
		return &refusal{RefusedReplayed, fmt.Sprintf("counter %d is more than %d behind the sender's newest (%d)", n, replayWindow, s.top)}
	case s.marked(s.top - n):
		return &refusal{RefusedReplayed, fmt.Sprintf("nonce %s-%d was accepted before", id.session, n)}
	default:
		s.mark(s.top - n)
	}
	s.last = now
	return nil
}

// shift moves the window up by d counters: bit i (i counters back) goes
// to bit i+d, word by word.
func (s *replayState) shift(d uint64) {
	const words = replayWindow / 64
	var out [words]uint64
	w, b := d/64, d%64
	for i := uint64(0); i+w < words; i++ {
		out[i+w] |= s.seen[i] << b
		if b > 0 && i+w+1 < words {
			out[i+w+1] |= s.seen[i] >> (64 - b)
		}
	}
	s.seen = out
}

func (s *replayState) mark(back uint64)        { s.seen[back/64] |= 1 << (back % 64) }
func (s *replayState) marked(back uint64) bool { return s.seen[back/64]&(1<<(back%64)) != 0 }

// signedBefore says whether r, a record that verified, was signed before
// t by its sender's clock (false for an unsigned one, under --insecure).
func signedBefore(r *kgo.Record, t time.Time) bool {
	for i := len(r.Headers) - 1; i >= 0; i-- { // the last counts, as in check
		if h := r.Headers[i]; h.Key == headerTime {
			ms, err := strconv.ParseInt(string(h.Value), 10, 64)
			return err == nil && ms < t.UnixMilli()
		}
	}
	return false
}

// counts are the refusals since the verifier was made, by reason.
func (v *verifier) counts() map[string]int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make(map[string]int64, len(v.refused))
	for k, n := range v.refused {
		out[k] = n
	}
	return out
}
