package config

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

func ksCase() Case {
	c := DefaultCase()
	c.Name, c.Engine = "ks", EngineKafkaStreams
	return c
}

// The kstreams preset on the kafka-streams engine must leave Kafka Streams'
// RocksDB defaults untouched, and the common settings must arrive under
// Kafka Streams' names.
func TestKafkaStreamsPropertiesOfTheDefaultCase(t *testing.T) {
	got := ksCase().KafkaStreamsProperties()
	want := map[string]string{
		"num.stream.threads":                         "1",
		"restore.consumer.max.poll.records":          "1000",
		"restore.consumer.fetch.max.bytes":           "52428800",
		"restore.consumer.max.partition.fetch.bytes": "1048576",
	}
	if !maps.Equal(got, want) {
		t.Fatalf("properties\n got %v\nwant %v", got, want)
	}
}

func TestKafkaStreamsPropertiesMapSettingsAndStreamsWin(t *testing.T) {
	c := ksCase()
	c.Threads, c.BatchRecords = 2, 10000
	c.RocksDB.WriteBufferSize = 64 << 20
	c.RocksDB.CompactionStyle = "level"
	c.RocksDB.BloomBitsPerKey = 0
	c.Strategy = StrategyMemory
	c.Streams = map[string]string{"num.standby.replicas": "1", "restore.consumer.max.poll.records": "500"}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	if c.BatchRecords != 500 {
		t.Fatalf("batch_records = %d: the explicit streams key must be written back", c.BatchRecords)
	}
	p := c.KafkaStreamsProperties()
	for k, v := range map[string]string{
		"num.stream.threads":                      "2",
		"restore.consumer.max.poll.records":       "500",
		"num.standby.replicas":                    "1",
		"restorebench.rocksdb.write_buffer_size":  "67108864",
		"restorebench.rocksdb.compaction_style":   "level",
		"restorebench.rocksdb.bloom_bits_per_key": "0",
		"restorebench.store.type":                 "memory",
	} {
		if p[k] != v {
			t.Errorf("%s = %q, want %q", k, p[k], v)
		}
	}
	if _, ok := p["restorebench.rocksdb.block_size"]; ok {
		t.Error("an option equal to Kafka Streams' default was passed")
	}
}

func TestKafkaStreamsValidationNamesTheField(t *testing.T) {
	cases := []struct {
		edit func(*Case)
		path string
		says string
	}{
		{func(c *Case) { c.Strategy = StrategyBulk }, "strategy", "model-only"},
		{func(c *Case) { c.Strategy = StrategyIngest }, "strategy", "model-only"},
		{func(c *Case) { c.Streams = map[string]string{"application.id": "x"} }, "streams.application.id", "profile's application_id"},
		{func(c *Case) { c.Streams = map[string]string{"bootstrap.servers": "x:1"} }, "streams.bootstrap.servers", "--brokers"},
		{func(c *Case) { c.Streams = map[string]string{"state.dir": "/x"} }, "streams.state.dir", "fresh directory"},
		{func(c *Case) { c.Streams = map[string]string{"restorebench.bare": "true"} }, "streams.restorebench.bare", "driver keys"},
		{func(c *Case) { c.Streams = map[string]string{"sasl.jaas.config": "x"} }, "streams.sasl.jaas.config", "secret"},
		{func(c *Case) { c.Streams = map[string]string{"num.stream.threads": "two"} }, "streams.num.stream.threads", "whole number"},
		{func(c *Case) {
			c.Streams = map[string]string{"rocksdb.config.setter": "x.Y"}
			c.RocksDB.Compression = "lz4"
		}, "streams.rocksdb.config.setter", "cannot be combined"},
		{func(c *Case) { c.RocksDB.DisableWAL = false }, "disable_wal", "WAL"},
		{func(c *Case) { c.JVMHeap = 1 << 20 }, "jvm_heap", "under"},
		{func(c *Case) { c.JVMFlags = []string{"-Xss1m", "Xmx2g"} }, "jvm_flags[1]", "not a JVM flag"},
		{func(c *Case) { c.JVMFlags = []string{"-cp"} }, "jvm_flags[0]", "class path"},
	}
	for _, tc := range cases {
		c := ksCase()
		tc.edit(&c)
		err := c.Finalize()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != tc.path || !strings.Contains(fe.Msg, tc.says) {
			t.Errorf("%s: err = %v, want a FieldError at %s saying %q", tc.path, err, tc.path, tc.says)
		}
	}
}

func TestModelEngineTakesOnlyMappedStreams(t *testing.T) {
	c := DefaultCase()
	c.Streams = map[string]string{"num.stream.threads": "2"}
	if err := c.Finalize(); err != nil || c.Threads != 2 {
		t.Fatalf("mapped key on the model: threads %d, err %v", c.Threads, err)
	}
	c.Streams["group.protocol"] = "streams"
	var fe *FieldError
	if err := c.Finalize(); !errors.As(err, &fe) || fe.Path != "streams.group.protocol" || !strings.Contains(fe.Msg, "model engine") {
		t.Fatalf("unmapped key on the model: %v", err)
	}
	// A kafka-streams-only setting on a case that runs both ways is fine
	// on the kafka-streams engine.
	c.Engine = EngineKafkaStreams
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
}

func TestDiffFromSkipsWALAndEqualOptions(t *testing.T) {
	o := KStreamsRocksDB()
	if d := o.DiffFrom(KStreamsRocksDB()); len(d) != 0 {
		t.Fatalf("preset differs from itself: %v", d)
	}
	o.DisableWAL = false
	o.MaxBackgroundJobs = 7
	if d := o.DiffFrom(KStreamsRocksDB()); len(d) != 1 || d["max_background_jobs"] != "7" {
		t.Fatalf("diff %v", d)
	}
}
