// Package queryload is the query load a case runs beside a restore: key
// lookups and ranges at a set rate, sent to the model's stores or over
// HTTP to Kafka Streams' API layer on each instance, routed as Kafka
// Streams assigns, each answer judged against the fill
// (loadgen.ReadChecker), and its outages, latencies and wrong answers
// recorded. It stands on fleet (the instances it asks; a single
// instance's load is started where the instance runs, through
// fleet.Process.StartQueries, with QueriesAt here or on the agent's host)
// and knows no scenario; the scenarios start and finish it.
package queryload
