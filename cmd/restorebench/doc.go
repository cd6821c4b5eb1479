// Command restorebench fills Kafka changelog topics and measures how long
// Kafka Streams state takes to come back from them. See the README.
package main
