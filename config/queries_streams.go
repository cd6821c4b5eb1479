package config

import "strings"

// queryOwnedStreams are the Streams properties the Kafka Streams driver
// sets itself when a case runs a query load (its API layer, turned on by
// restorebench.api.port), with why: the driver refuses a case's own value
// at every instance's start (kstreams/PROTOCOL.md, "The API layer"), after
// the fill, so a profile refuses it first, naming the key.
var queryOwnedStreams = map[string]string{
	"application.server": "the driver sets it to its API layer's address (restorebench.api.host and the port it listens " +
		"on), which queryMetadataForKey names to route every lookup; remove it, or the queries",
}

// checkQueryOwnedStreams refuses, beside queries, a streams key the
// driver sets for the query load (queryOwnedStreams).
func (c Case) checkQueryOwnedStreams() error {
	if c.Queries == nil {
		return nil
	}
	for _, k := range sortedKeys(c.Streams) {
		if why := queryOwnedStreams[strings.TrimSpace(k)]; why != "" {
			return fieldErr("streams."+k, "must not be set beside queries: %s", why)
		}
	}
	return nil
}
