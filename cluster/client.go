package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/internal/poll"
)

// DefaultConnectTimeout bounds reaching the brokers unless told otherwise:
// an unreachable broker is an error after this long, not a hang.
const DefaultConnectTimeout = 15 * time.Second

// Config is how to reach a cluster.
type Config struct {
	// Brokers are bootstrap host:port addresses (Kafka's bootstrap.servers).
	Brokers []string
	// ConnectTimeout bounds the first metadata round trip, so an unreachable
	// broker fails fast instead of retrying forever. Default 15 s.
	ConnectTimeout time.Duration
	// Security holds TLS and SASL options; nil connects in plaintext.
	Security []kgo.Opt
	// Login names the SASL identity for errors ("user alice
	// (SASL/SCRAM-SHA-512)", see Security.Login); empty without SASL.
	Login string
	// Settings are the TLS and SASL settings Security and Login were made
	// from, which the Kafka Streams JVMs take as Kafka client properties
	// (Security.JavaProperties); nil in plaintext.
	Settings *Security
}

// ParseBrokers splits a comma-separated broker list and checks each is host:port.
func ParseBrokers(s string) ([]string, error) {
	var out []string
	for _, b := range strings.Split(s, ",") {
		b = strings.TrimSpace(b)
		if b == "" {
			continue
		}
		// A user name or password in an address (user:pass@host:9092)
		// would be logged and recorded with it, and Kafka has no such
		// syntax: credentials go in --command-config or the --sasl-* flags.
		// The address is not quoted, as it holds the secret; nor is one
		// that percent-decodes to it (bob%3Ahunter2%40host:9092).
		if strings.ContainsRune(percentDecoded(b), '@') {
			return nil, errors.New("a broker address holds a user name or password (user@host): Kafka addresses are " +
				"host:port; give credentials with --command-config or --sasl-username and --sasl-password-file")
		}
		i := strings.LastIndexByte(b, ':')
		if i <= 0 || i == len(b)-1 {
			return nil, fmt.Errorf("broker address %q is not host:port", b)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, errors.New("no broker addresses given")
	}
	return out, nil
}

// NewClient builds a client for cfg with extra options appended.
func NewClient(cfg Config, extra ...kgo.Opt) (*kgo.Client, error) {
	opts := []kgo.Opt{
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.DialTimeout(5 * time.Second),
		kgo.ClientID("restorebench"),
	}
	opts = append(opts, cfg.Security...)
	opts = append(opts, extra...)
	return kgo.NewClient(opts...)
}

// adminMetadataAge is how long an admin client trusts the metadata it
// cached: kgo keeps a topic it listed, or found missing, for
// MetadataMinAge (default 5 s), so a topic created just after it was looked
// up stayed unlisted, and AwaitTopic waited, those 5 s. An admin client's
// metadata requests are few; asking again after 100 ms costs nothing.
const adminMetadataAge = 100 * time.Millisecond

// NewAdmin is an admin client of cfg whose metadata is fresh (see
// adminMetadataAge), and the kgo client under it, for the caller to close.
func NewAdmin(cfg Config) (*kadm.Client, *kgo.Client, error) {
	cl, err := NewClient(cfg, kgo.MetadataMinAge(adminMetadataAge))
	if err != nil {
		return nil, nil, err
	}
	return kadm.NewClient(cl), cl, nil
}

// Ping checks within cfg.ConnectTimeout that the cluster answers metadata
// requests, and returns its broker count. The error names the addresses.
func Ping(ctx context.Context, cfg Config) (int, error) {
	timeout := cfg.ConnectTimeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	cl, err := NewClient(cfg, kgo.RetryTimeout(timeout))
	if err != nil {
		return 0, fmt.Errorf("brokers %s: %w", strings.Join(cfg.Brokers, ","), err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	md, err := kadm.NewClient(cl).BrokerMetadata(ctx)
	if err != nil {
		if authErr := authFailure(cfg, err); authErr != nil {
			return 0, authErr
		}
		if tlsErr := tlsFailure(cfg, err); tlsErr != nil {
			return 0, tlsErr
		}
		if ctx.Err() != nil && !errors.Is(err, context.Canceled) {
			return 0, fmt.Errorf("brokers %s did not answer within %s: %w", strings.Join(cfg.Brokers, ","), timeout, err)
		}
		return 0, fmt.Errorf("brokers %s: %w", strings.Join(cfg.Brokers, ","), err)
	}
	return len(md.Brokers), nil
}

// TopicOffsets are a topic's per-partition log start and end offsets.
type TopicOffsets struct {
	Topic string
	Start map[int32]int64
	End   map[int32]int64
}

// Partitions returns the partitions in ascending order (all of them, also
// when Only left a sparse set such as 3 and 17).
func (o TopicOffsets) Partitions() []int32 {
	ps := make([]int32, 0, len(o.End))
	for p := range o.End {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// Only is o restricted to the partitions ps (a restore of a sample of a
// topic's partitions: restore --partitions); nil ps keeps every one. A
// partition of ps that o does not hold is left out: callers check first
// that each exists.
func (o TopicOffsets) Only(ps []int32) TopicOffsets {
	if ps == nil {
		return o
	}
	out := TopicOffsets{Topic: o.Topic, Start: map[int32]int64{}, End: map[int32]int64{}}
	for _, p := range ps {
		if end, ok := o.End[p]; ok {
			out.End[p], out.Start[p] = end, o.Start[p]
		}
	}
	return out
}

// ErrTopicNotFound is returned when a topic does not exist.
var ErrTopicNotFound = errors.New("topic not found")

// Offsets lists a topic's start and end offsets, as a restore captures them
// when it begins (Kafka Streams reads to the end offset seen at that moment).
func Offsets(ctx context.Context, adm *kadm.Client, topic string) (TopicOffsets, error) {
	out := TopicOffsets{Topic: topic, Start: map[int32]int64{}, End: map[int32]int64{}}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return out, fmt.Errorf("topic %s: end offsets: %w", topic, err)
	}
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err != nil {
		return out, fmt.Errorf("topic %s: start offsets: %w", topic, err)
	}
	var missing bool
	ends.Each(func(o kadm.ListedOffset) {
		if errors.Is(o.Err, kerr.UnknownTopicOrPartition) {
			missing = true
			return
		}
		if o.Err != nil && err == nil {
			err = fmt.Errorf("topic %s partition %d: end offset: %w", topic, o.Partition, o.Err)
		}
		out.End[o.Partition] = o.Offset
	})
	if missing || len(out.End) == 0 {
		return out, fmt.Errorf("topic %s: %w", topic, ErrTopicNotFound)
	}
	starts.Each(func(o kadm.ListedOffset) {
		if o.Err != nil && err == nil {
			err = fmt.Errorf("topic %s partition %d: start offset: %w", topic, o.Partition, o.Err)
		}
		out.Start[o.Partition] = o.Offset
	})
	return out, err
}

// CreateChangelog creates a compacted topic with the given partitions and
// extra configs (cleanup.policy=compact is always set, as Kafka Streams does
// for key-value store changelogs). Replication factor -1 takes the broker's
// default.replication.factor.
func CreateChangelog(ctx context.Context, adm *kadm.Client, topic string, partitions int32, configs map[string]string) error {
	cfg := map[string]*string{}
	for k, v := range configs {
		cfg[k] = kadm.StringPtr(v)
	}
	cfg["cleanup.policy"] = kadm.StringPtr("compact")
	resp, err := adm.CreateTopic(ctx, partitions, -1, cfg, topic)
	if err != nil {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	if resp.Err != nil {
		return fmt.Errorf("create topic %s: %w", topic, resp.Err)
	}
	return AwaitTopic(ctx, adm, topic, partitions)
}

// TopicPropagation bounds how long AwaitTopic waits for a created topic.
const TopicPropagation = 15 * time.Second

// AwaitTopic waits until the brokers' metadata lists topic with its
// partitions, each with a leader: CreateTopics answers once the controller
// has the topic, and a broker can still answer UNKNOWN_TOPIC_OR_PARTITION
// for a moment after (a list of offsets right after creating an input topic
// failed so on a busy broker). It gives up after TopicPropagation.
func AwaitTopic(ctx context.Context, adm *kadm.Client, topic string, partitions int32) error {
	unlisted := fmt.Sprintf("topic %s: created, but not listed with %d partitions after %s", topic, partitions, TopicPropagation)
	return poll.Until(ctx, 100*time.Millisecond, TopicPropagation, unlisted, func(ctx context.Context) (bool, error) {
		td, err := adm.ListTopics(ctx, topic)
		if err != nil {
			return false, nil // asked again: the metadata may not have reached this broker yet
		}
		d, ok := td[topic]
		return ok && d.Err == nil && int32(len(d.Partitions)) == partitions && ledPartitions(d), nil
	})
}

// ledPartitions says every partition of d has a leader.
func ledPartitions(d kadm.TopicDetail) bool {
	for _, p := range d.Partitions {
		if p.Leader < 0 || p.Err != nil {
			return false
		}
	}
	return true
}

// DeleteTopic deletes a topic; a missing topic is not an error.
func DeleteTopic(ctx context.Context, adm *kadm.Client, topic string) error {
	resp, err := adm.DeleteTopic(ctx, topic)
	if err != nil {
		return fmt.Errorf("delete topic %s: %w", topic, err)
	}
	if resp.Err != nil && !errors.Is(resp.Err, kerr.UnknownTopicOrPartition) {
		return fmt.Errorf("delete topic %s: %w", topic, resp.Err)
	}
	return nil
}

// authFailure turns what a failed SASL login looks like on the wire into
// one clear error: the broker's SASL_AUTHENTICATION_FAILED, a broker that
// closed the connection mid-login (EOF), or a listener that does not speak
// SASL (ILLEGAL_SASL_STATE). Other errors give nil.
func authFailure(cfg Config, err error) error {
	if cfg.Login == "" {
		return nil
	}
	at := cfg.listener()
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed):
		return fmt.Errorf("authentication failed for %s at %s: %v", cfg.Login, at, err)
	case errors.Is(err, kerr.IllegalSaslState), errors.Is(err, kerr.UnsupportedSaslMechanism):
		return fmt.Errorf("authentication failed for %s at %s: %v (is this a SASL listener offering that mechanism?)", cfg.Login, at, err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("authentication failed for %s at %s: the broker closed the connection during the login (wrong "+
			"user or password, or not a SASL listener)", cfg.Login, at)
	}
	return nil
}

// listener names the brokers with their protocol for errors: "the
// SASL_SSL listener 127.0.0.1:9096" ("127.0.0.1:9092" in plaintext).
func (cfg Config) listener() string {
	at := strings.Join(cfg.Brokers, ",")
	if cfg.Settings == nil {
		return at
	}
	return "the " + cfg.Settings.protocol() + " listener " + at
}

// tlsFailure turns a failed TLS handshake into one clear error naming the
// listener and what was trusted: the broker's certificate did not verify
// (an unknown CA, a host name it does not hold, expired), or the
// handshake itself failed (not a TLS listener). Other errors give nil.
func tlsFailure(cfg Config, err error) error {
	if cfg.Settings == nil || !cfg.Settings.UsesTLS() {
		return nil
	}
	at, trust := cfg.listener(), cfg.Settings.trustDescription()
	var verr *tls.CertificateVerificationError
	var rerr tls.RecordHeaderError
	switch {
	case errors.As(err, &verr):
		return fmt.Errorf("TLS handshake with %s failed: its certificate is not trusted (%s): %v", at, trust, verr.Err)
	case errors.As(err, &rerr):
		return fmt.Errorf("TLS handshake with %s failed: the broker did not answer in TLS (is it a PLAINTEXT or SASL_PLAINTEXT listener?)", at)
	}
	return nil
}

// LogBytes is the size of topic's log on the brokers, summed over
// partitions and log directories (DescribeLogDirs).
func LogBytes(ctx context.Context, adm *kadm.Client, topic string) (int64, error) {
	dirs, err := adm.DescribeAllLogDirs(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("topic %s: log dirs: %w", topic, err)
	}
	var size int64
	for _, d := range dirs {
		for _, ld := range d {
			for _, p := range ld.Topics[topic] {
				size += p.Size
			}
		}
	}
	return size, nil
}

// percentDecoded is s with every valid %XX decoded, over and over until
// nothing changes (at most 3 times: a twice-encoded address); an invalid
// one ("%eth0", an IPv6 zone) stays as it is.
func percentDecoded(s string) string {
	for range 3 {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '%' && i+2 < len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i += 2
					continue
				}
			}
			b.WriteByte(s[i])
		}
		if b.String() == s {
			break
		}
		s = b.String()
	}
	return s
}
