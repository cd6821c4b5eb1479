package config

import (
	"fmt"
	"regexp"
	"strings"
)

// JVM flags a case may pass to its Kafka Streams instances (jvm_flags), and
// an agent accepts from a coordinator: memory and garbage-collector
// settings only. A JVM flag can run commands (-XX:OnOutOfMemoryError=…,
// -XX:OnError=…), load code (-javaagent:, -agentpath:, -Xbootclasspath),
// write files anywhere (-XX:HeapDumpPath=, -Xlog:…:file=, -XX:ErrorFile=)
// or dump the heap, secrets and all (-XX:+HeapDumpOnOutOfMemoryError), so
// the list names what is allowed rather than what is not.
var (
	// jvmSizeFlag: -Xmx2g, -Xms512m, -Xss1m, -Xmn256m.
	jvmSizeFlag = regexp.MustCompile(`^-X(mx|ms|ss|mn)[0-9]{1,12}[kKmMgGtT]?$`)
	// jvmValueFlag: -XX:Name=number, with an optional size suffix.
	jvmValueFlag = regexp.MustCompile(`^-XX:([A-Za-z0-9]+)=([0-9]{1,15}(\.[0-9]{1,6})?[kKmMgGtT]?)$`)
	// jvmBoolFlag: -XX:+Name or -XX:-Name.
	jvmBoolFlag = regexp.MustCompile(`^-XX:[+-]([A-Za-z0-9]+)$`)
)

// jvmValueFlags are the -XX:Name=value settings allowed: sizes, counts,
// ratios and pause goals of the heap, metaspace, direct memory, code cache
// and collectors.
var jvmValueFlags = map[string]bool{
	"MaxDirectMemorySize": true, "MaxMetaspaceSize": true, "MetaspaceSize": true, "CompressedClassSpaceSize": true,
	"ReservedCodeCacheSize": true, "MaxRAMPercentage": true, "InitialRAMPercentage": true, "MinRAMPercentage": true,
	"MaxRAM": true, "SoftMaxHeapSize": true, "MaxNewSize": true, "NewSize": true, "NewRatio": true, "SurvivorRatio": true,
	"MaxTenuringThreshold": true, "MaxHeapFreeRatio": true, "MinHeapFreeRatio": true, "GCTimeRatio": true,
	"MaxGCPauseMillis": true, "GCPauseIntervalMillis": true, "ParallelGCThreads": true, "ConcGCThreads": true,
	"ActiveProcessorCount": true, "G1HeapRegionSize": true, "G1NewSizePercent": true, "G1MaxNewSizePercent": true,
	"G1ReservePercent": true, "G1MixedGCCountTarget": true, "G1HeapWastePercent": true, "InitiatingHeapOccupancyPercent": true,
	"ZCollectionInterval": true, "ZAllocationSpikeTolerance": true,
}

// jvmBoolFlags are the -XX:+Name / -XX:-Name switches allowed: which
// collector, its modes, and how the heap is laid out and sized.
var jvmBoolFlags = map[string]bool{
	"UseG1GC": true, "UseParallelGC": true, "UseSerialGC": true, "UseZGC": true, "UseShenandoahGC": true,
	"ZGenerational": true, "UseStringDeduplication": true, "ParallelRefProcEnabled": true, "DisableExplicitGC": true,
	"ExplicitGCInvokesConcurrent": true, "UseAdaptiveSizePolicy": true, "AlwaysPreTouch": true, "UseLargePages": true,
	"UseTransparentHugePages": true, "UseNUMA": true, "UseCompressedOops": true, "UseCompressedClassPointers": true,
	"UseContainerSupport": true, "ExitOnOutOfMemoryError": true, "UseDynamicNumberOfGCThreads": true,
	"UnlockExperimentalVMOptions": true, "G1UseAdaptiveIHOP": true, "ScavengeBeforeFullGC": true,
}

// CheckJVMFlag says why flag is not one of the memory and garbage-collector
// flags a case may set (nil when it is). The message names the flag, never
// its value beyond what the pattern shows, and the way to what is allowed.
func CheckJVMFlag(flag string) error {
	switch {
	case !strings.HasPrefix(flag, "-"):
		return fmt.Errorf("%q is not a JVM flag (flags start with '-')", flag)
	case flag == "-cp" || flag == "-classpath" || flag == "--class-path" || flag == "-jar":
		return fmt.Errorf("%s: restorebench sets the driver's class path itself", flag)
	case jvmSizeFlag.MatchString(flag):
		return nil
	}
	if m := jvmValueFlag.FindStringSubmatch(flag); m != nil && jvmValueFlags[m[1]] {
		return nil
	}
	if m := jvmBoolFlag.FindStringSubmatch(flag); m != nil && jvmBoolFlags[m[1]] {
		return nil
	}
	name, _, _ := strings.Cut(flag, "=")
	return fmt.Errorf("%.60s is not one of the memory and garbage-collector flags allowed (-Xmx/-Xms/-Xss/-Xmn sizes, "+
		"-XX:+/-UseG1GC and other collector switches, -XX:MaxDirectMemorySize=, -XX:MaxMetaspaceSize= "+
		"and other sizes): "+
		"flags that run commands, load agents, write dumps or files, or set system properties are refused", name)
}
