package config

import (
	"errors"
	"strings"
	"testing"
)

// TestJVMFlagsAllowList: a kafka-streams case takes memory and collector
// flags, and refuses at the flag every one that runs a command, loads
// code, writes a file or a dump, or sets a system property: an agent
// checks a coordinator's flags with the same rule.
func TestJVMFlagsAllowList(t *testing.T) {
	for _, f := range []string{"-Xmx2g", "-Xms512m", "-Xss1m", "-XX:+UseG1GC", "-XX:-UseAdaptiveSizePolicy", "-XX:MaxDirectMemorySize=256m",
		"-XX:MaxMetaspaceSize=128m", "-XX:MaxRAMPercentage=75.0", "-XX:ParallelGCThreads=2", "-XX:+ExitOnOutOfMemoryError"} {
		c := ksCase()
		c.JVMFlags = []string{f}
		if err := c.Finalize(); err != nil {
			t.Errorf("%s refused: %v", f, err)
		}
	}
	for _, f := range []string{"-XX:OnOutOfMemoryError=touch /tmp/pwned", "-XX:OnError=sh -c id", "-XX:+HeapDumpOnOutOfMemoryError",
		"-XX:HeapDumpPath=/tmp/heap.hprof", "-javaagent:/tmp/a.jar", "-agentpath:/tmp/a.so", "-agentlib:jdwp=transport=dt_socket,server=y",
		"-Xlog:gc:file=/etc/cron.d/x", "-XX:ErrorFile=/tmp/err", "-Dlog4j.configurationFile=/tmp/x", "-Xbootclasspath/a:/tmp",
		"-XX:StartFlightRecording=filename=/tmp/x.jfr", "-XX:+UnlockDiagnosticVMOptions", "-XX:MaxMetaspaceSize=12m -XX:OnError=id", "-Xmx1g;id"} {
		c := ksCase()
		c.JVMFlags = []string{"-Xss1m", f}
		err := c.Finalize()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != "jvm_flags[1]" || !strings.Contains(err.Error(), "not one of the memory and garbage-collector flags allowed") {
			t.Errorf("%s: %v, want it refused at jvm_flags[1] as outside the allow-list", f, err)
		}
		if CheckJVMFlag(f) == nil {
			t.Errorf("CheckJVMFlag(%s) passed", f)
		}
	}
}

// TestConfigProvidersRefused: a streams property that configures or
// references one of Kafka's config providers (which read files on the
// instance's host into its settings) is refused at the property.
func TestConfigProvidersRefused(t *testing.T) {
	for k, v := range map[string]string{"config.providers": "file", "main.consumer.config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
		"client.id": "${file:/etc/hostname:name}"} {
		c := ksCase()
		c.Streams = map[string]string{k: v}
		err := c.Finalize()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != "streams."+k || !strings.Contains(err.Error(), "config provider") {
			t.Errorf("streams.%s=%s: %v, want it refused at the property", k, v, err)
		}
	}
}
