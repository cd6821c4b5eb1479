package fleet

import (
	"maps"
	"strconv"
	"strings"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/ksdriver"
)

// jvmClient is how a Kafka Streams JVM reaches env's cluster, as Kafka
// client properties: bootstrap.servers and, on a secured cluster, the
// same TLS and SASL settings restorebench's own clients use, with the
// connection check on (ksdriver.PropConnectTimeoutMs, the connect
// timeout), so a failed login or an untrusted certificate is one error
// at once. Plain goes in CONFIG.properties and the record; Secret only in
// ksdriver.Options.Secrets.
func (e *Env) jvmClient() (cluster.JavaClient, error) {
	jc := cluster.JavaClient{Plain: map[string]string{}, Secret: map[string]string{}}
	if s := e.Cluster.Settings; s != nil {
		var err error
		if jc, err = s.JavaProperties(); err != nil {
			return jc, err
		}
		timeout := e.Cluster.ConnectTimeout
		if timeout <= 0 {
			timeout = cluster.DefaultConnectTimeout
		}
		jc.Plain[ksdriver.PropConnectTimeoutMs] = strconv.FormatInt(timeout.Milliseconds(), 10)
	}
	jc.Plain["bootstrap.servers"] = strings.Join(e.Cluster.Brokers, ",")
	return jc, nil
}

// AddClientProperties puts env's plain client properties (jvmClient) into
// an instance's properties, over what the case set.
func AddClientProperties(env *Env, props map[string]string) error {
	jc, err := env.jvmClient()
	if err != nil {
		return err
	}
	maps.Copy(props, jc.Plain)
	return nil
}

// jvmSecrets are the secret client properties of env's cluster, for
// ksdriver.Options.Secrets; nil in plaintext.
func jvmSecrets(env *Env) (map[string]string, error) {
	jc, err := env.jvmClient()
	if err != nil || len(jc.Secret) == 0 {
		return nil, err
	}
	return jc.Secret, nil
}
