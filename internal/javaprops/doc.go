// Package javaprops reads and writes Java .properties files, the format of
// Kafka's client configuration (--command-config) and of the Kafka Streams
// driver's configuration.
package javaprops
