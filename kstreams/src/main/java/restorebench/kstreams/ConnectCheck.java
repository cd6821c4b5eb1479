package restorebench.kstreams;

import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.AuthenticationException;

/**
 * Checks, before Kafka Streams starts, that the cluster takes the client's
 * TLS and SASL settings: one Admin describeCluster with the same
 * bootstrap.servers, security.protocol, sasl.* and ssl.* properties. Kafka
 * Streams itself would meet a failed login or an untrusted certificate in
 * each of its clients and retry or fail thread by thread; this fails once,
 * at once, with a message that names the listener, the protocol and the
 * mechanism (never a secret: Kafka's own messages hold none).
 */
final class ConnectCheck {
    private static final Pattern JAAS_USER = Pattern.compile("username\\s*=\\s*\"((?:[^\"\\\\]|\\\\.)*)\"|username\\s*=\\s*([^\\s;\"]+)");

    private ConnectCheck() {
    }

    /** Returns null when the cluster answered, else why it did not. */
    static String check(Properties streams, long timeoutMs) {
        Properties admin = new Properties();
        for (String key : streams.stringPropertyNames()) {
            if (AdminClientConfig.configNames().contains(key)) {
                admin.setProperty(key, streams.getProperty(key));
            }
        }
        int ms = (int) Math.min(Integer.MAX_VALUE, timeoutMs);
        admin.setProperty(AdminClientConfig.CLIENT_ID_CONFIG, "restorebench-connect-check");
        admin.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(ms));
        admin.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Integer.toString(ms));
        try (Admin client = Admin.create(admin)) {
            client.describeCluster(new DescribeClusterOptions().timeoutMs(ms)).clusterId().get(timeoutMs + 1000, TimeUnit.MILLISECONDS);
            return null;
        } catch (ExecutionException e) {
            return describe(streams, e.getCause(), timeoutMs);
        } catch (TimeoutException e) {
            return describe(streams, e, timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while connecting to " + listener(streams);
        } catch (RuntimeException e) {
            return "connecting to " + listener(streams) + ": " + Events.describe(e);
        }
    }

    /** The message for a failed check. */
    private static String describe(Properties p, Throwable cause, long timeoutMs) {
        String at = listener(p);
        if (cause instanceof SaslAuthenticationException) {
            return "SASL login to " + at + " failed " + login(p) + ": " + cause.getMessage();
        }
        if (cause instanceof SslAuthenticationException) {
            String why = rootMessage(cause);
            if (why.contains("certification path")) {
                why = "the broker's certificate does not chain to a trusted CA (" + why + ")";
            }
            return "TLS handshake with " + at + " failed" + trust(p) + ": " + why;
        }
        if (cause instanceof AuthenticationException) {
            return "authentication with " + at + " failed " + login(p) + ": " + rootMessage(cause);
        }
        if (cause instanceof TimeoutException || cause instanceof org.apache.kafka.common.errors.TimeoutException) {
            return at + " did not answer within " + timeoutMs + " ms (is the port a listener of that protocol?)";
        }
        return "connecting to " + at + ": " + Events.describe(cause);
    }

    /** "the SASL_SSL listener 127.0.0.1:9096". */
    private static String listener(Properties p) {
        return "the " + p.getProperty(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT") + " listener "
                + p.getProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "?");
    }

    /** "with SCRAM-SHA-512 as user alice". */
    private static String login(Properties p) {
        String s = "with " + p.getProperty(SaslConfigs.SASL_MECHANISM, SaslConfigs.DEFAULT_SASL_MECHANISM);
        Matcher m = JAAS_USER.matcher(p.getProperty(SaslConfigs.SASL_JAAS_CONFIG, ""));
        if (m.find()) {
            s += " as user " + (m.group(1) != null ? m.group(1).replaceAll("\\\\(.)", "$1") : m.group(2));
        }
        return s;
    }

    /** " (trusting the PEM store /etc/ca.pem)", or the JVM's CAs. */
    private static String trust(Properties p) {
        String loc = p.getProperty(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG);
        String type = p.getProperty(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, SslConfigs.DEFAULT_SSL_TRUSTSTORE_TYPE);
        if (loc != null && !loc.isBlank()) {
            return " (trusting the " + type + " store " + loc + ")";
        }
        if (p.getProperty(SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG) != null) {
            return " (trusting the inline PEM certificates)";
        }
        return " (trusting the JVM's CA certificates)";
    }

    /** The innermost cause's message: a handshake's reason sits deep. */
    private static String rootMessage(Throwable t) {
        Throwable r = t;
        while (r.getCause() != null && r.getCause() != r) {
            r = r.getCause();
        }
        String m = r.getMessage();
        return m == null ? r.getClass().getSimpleName() : m;
    }
}
