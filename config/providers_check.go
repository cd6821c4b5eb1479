package config

import (
	"fmt"
	"strings"
)

// CheckConfigProviders refuses Kafka's config providers in a client or
// Streams property: config.providers (under any client prefix) loads a
// provider class, and a value that references one (${file:/path:key})
// makes the client read a file on the instance's host into its settings,
// from where client.id and its like reach the brokers' logs and metrics.
// Profiles and agents refuse both alike.
func CheckConfigProviders(key, value string) error {
	if base := ClientBaseName(key); base == "config.providers" || strings.HasPrefix(base, "config.providers.") {
		return fmt.Errorf("%s: Kafka's config providers read files on the instance's host into its settings; restorebench passes none", key)
	}
	if strings.Contains(value, "${") {
		return fmt.Errorf("%s: the value references a config provider (${...}); restorebench passes none", key)
	}
	return nil
}
