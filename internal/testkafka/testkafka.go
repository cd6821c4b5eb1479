package testkafka

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/loadgen"
)

// Embedded starts an in-memory embedded broker for the test's lifetime.
func Embedded(t testing.TB) (cluster.Config, *cluster.Embedded) {
	t.Helper()
	e, err := cluster.StartEmbedded("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return cluster.Config{Brokers: e.Addrs(), ConnectTimeout: 10 * time.Second}, e
}

// RealBrokers returns the real cluster's bootstrap addresses from
// RESTOREBENCH_BROKERS. Unset, the test is skipped, except under CI=true,
// where a missing broker is a failure: CI must run the integration suite.
func RealBrokers(t testing.TB) []string {
	t.Helper()
	v := os.Getenv("RESTOREBENCH_BROKERS")
	if v == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("RESTOREBENCH_BROKERS is not set under CI=true: the integration suite needs the real broker (make test starts it)")
		}
		t.Skip("RESTOREBENCH_BROKERS not set: integration test needs a real broker (make kafka-up)")
	}
	bs, err := cluster.ParseBrokers(v)
	if err != nil {
		t.Fatalf("RESTOREBENCH_BROKERS: %v", err)
	}
	return bs
}

// TopicName returns a topic name unique to this test run.
func TopicName(t testing.TB) string {
	name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	return "rbtest-" + strings.ToLower(name) + "-" + time.Now().Format("150405.000000")
}

// Fill creates topic and produces spec's records to it (a transactional
// spec with a transactional producer, its aborted transactions too).
func Fill(t testing.TB, cfg cluster.Config, topic string, spec loadgen.Spec, topicConfigs map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cluster.CreateChangelog(ctx, kadm.NewClient(cl), topic, spec.Partitions, topicConfigs); err != nil {
		t.Fatal(err)
	}
	if spec.Transactional {
		opts, err := loadgen.TransactionalProducerOpts("lz4", topic)
		if err != nil {
			t.Fatal(err)
		}
		pcl, err := cluster.NewClient(cfg, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer pcl.Close()
		if _, err := loadgen.ProduceTransactional(ctx, pcl, topic, spec, nil); err != nil {
			t.Fatal(err)
		}
		return
	}
	pcl := producer(t, cfg)
	defer pcl.Close()
	if _, err := loadgen.Produce(ctx, pcl, topic, spec, nil); err != nil {
		t.Fatal(err)
	}
}

// producer is a client producing as fills do (lz4); the caller closes it.
func producer(t testing.TB, cfg cluster.Config) *kgo.Client {
	t.Helper()
	opts, err := loadgen.ProducerOpts("lz4")
	if err != nil {
		t.Fatal(err)
	}
	pcl, err := cluster.NewClient(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return pcl
}

// Append writes the records of spec from index from on to topic, extending
// a fill of the same generator.
func Append(t testing.TB, cfg cluster.Config, topic string, spec loadgen.Spec, from int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pcl := producer(t, cfg)
	defer pcl.Close()
	if _, err := loadgen.ProduceFrom(ctx, pcl, topic, spec, from, nil); err != nil {
		t.Fatal(err)
	}
}

// Offsets returns topic's offsets.
func Offsets(t testing.TB, cfg cluster.Config, topic string) cluster.TopicOffsets {
	t.Helper()
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	o, err := cluster.Offsets(context.Background(), kadm.NewClient(cl), topic)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// The local broker's login (scripts/kafka.sh): one user on PLAIN,
// SCRAM-SHA-256 and SCRAM-SHA-512 on both SASL listeners.
const (
	SASLUser     = "restorebench"
	SASLPassword = "restorebench-secret"
)

// Listener is one of the local broker's secured listeners and how a
// client logs in to it.
type Listener struct {
	Brokers  []string
	Security cluster.Security
}

// SecuredListener returns the local broker's listener of protocol
// (SASL_PLAINTEXT, SSL or SASL_SSL) from RESTOREBENCH_SASL_BROKERS,
// RESTOREBENCH_SSL_BROKERS or RESTOREBENCH_SASL_SSL_BROKERS, with the CA
// of RESTOREBENCH_TLS_CA for the TLS ones and the broker's user for the
// SASL ones (mechanism SCRAM-SHA-512; change it as needed). Unset, the
// test is skipped, except under CI=true, where it fails.
func SecuredListener(t testing.TB, protocol string) Listener {
	t.Helper()
	envVar := map[string]string{cluster.ProtocolSASLPlaintext: "RESTOREBENCH_SASL_BROKERS",
		cluster.ProtocolSSL: "RESTOREBENCH_SSL_BROKERS", cluster.ProtocolSASLSSL: "RESTOREBENCH_SASL_SSL_BROKERS"}[protocol]
	need := []string{envVar}
	sec := cluster.Security{Protocol: protocol}
	if protocol != cluster.ProtocolSASLPlaintext {
		need = append(need, "RESTOREBENCH_TLS_CA")
		sec.CAFile = os.Getenv("RESTOREBENCH_TLS_CA")
	}
	if protocol != cluster.ProtocolSSL {
		sec.Mechanism, sec.Username, sec.Password = cluster.MechanismScramSHA512, SASLUser, SASLPassword
	}
	for _, v := range need {
		if os.Getenv(v) != "" {
			continue
		}
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set under CI=true: the %s tests need the local broker's listener (make test sets it)", v, protocol)
		}
		t.Skipf("%s not set: the %s tests need the local broker (scripts/kafka.sh up)", v, protocol)
	}
	bs, err := cluster.ParseBrokers(os.Getenv(envVar))
	if err != nil {
		t.Fatalf("%s: %v", envVar, err)
	}
	return Listener{Brokers: bs, Security: sec}
}

// SetTopicConfig sets one config of topic (a window changelog's
// retention.ms, as Kafka Streams makes it).
func SetTopicConfig(t testing.TB, cfg cluster.Config, topic, key, value string) {
	t.Helper()
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rs, err := kadm.NewClient(cl).AlterTopicConfigs(context.Background(), []kadm.AlterConfig{{Op: kadm.SetConfig, Name: key, Value: &value}}, topic)
	if err == nil {
		_, err = rs.On(topic, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
}
