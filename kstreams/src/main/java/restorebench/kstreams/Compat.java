package restorebench.kstreams;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * What differs between the Kafka Streams versions the driver is built
 * against (3.9.x to 4.4.x, one source tree; scripts/kstreams.sh builds it
 * per version with mvn -Dkafka.version=V), in one place. Each difference is
 * chosen by what the jar on the class path has (a class present or not),
 * never by parsing version numbers, and each one in use is named in the
 * hello event's {@code compat} list, so a record says how its instance was
 * driven.
 *
 * <p>The differences, as the jars show them:
 * <ul>
 * <li>Closing: {@code org.apache.kafka.streams.CloseOptions} (with
 * {@code GroupMembershipOperation} LEAVE_GROUP / REMAIN_IN_GROUP) exists from
 * 4.2; before it there is only {@code KafkaStreams.CloseOptions}, whose
 * {@code leaveGroup(true)} removes static members (group.instance.id) only. A
 * dynamic member of 3.9-4.1 stays in the group after close until
 * session.timeout.ms, so the next instance of the application would wait
 * that long in REBALANCING. To give `stop` the same meaning on every version
 * the driver then sets the main consumer's
 * {@code internal.leave.group.on.close=true} (Kafka Streams' own default
 * override is false; a user's value wins).</li>
 * </ul>
 * Everything else the driver calls (StandbyUpdateListener, the restore
 * listener, metadataForLocalThreads, allLocalStorePartitionLags, the state
 * updater's metric names) is the same in every supported version.
 */
final class Compat {
    /** The close options class of Kafka Streams 4.2 and later. */
    static final String CLOSE_OPTIONS = "org.apache.kafka.streams.CloseOptions";
    /** The main consumer's leave-on-close property (an internal ConsumerConfig). */
    static final String LEAVE_ON_CLOSE = StreamsConfig.MAIN_CONSUMER_PREFIX + "internal.leave.group.on.close";

    private static final boolean HAS_CLOSE_OPTIONS = present(CLOSE_OPTIONS);

    private Compat() {
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, KafkaStreams.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * The version in kafka-streams' jar (kafka/kafka-streams-version.properties),
     * else the clients' version.
     */
    static String kafkaStreamsVersion() {
        String v = versionResource(KafkaStreams.class, "/kafka/kafka-streams-version.properties");
        return v != null ? v : kafkaClientsVersion();
    }

    /**
     * The kafka-clients version on the class path: the
     * kafka/kafka-version.properties its AppInfoParser reads (that class
     * moved to an internals package in 4.4, so the resource is what every
     * version shares).
     */
    static String kafkaClientsVersion() {
        String v = versionResource(org.apache.kafka.clients.CommonClientConfigs.class, "/kafka/kafka-version.properties");
        return v != null ? v : "unknown";
    }

    /** The version property of resource next to class c, or null. */
    private static String versionResource(Class<?> c, String resource) {
        try (InputStream in = c.getResourceAsStream(resource)) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("version");
                if (v != null && !v.isBlank()) {
                    return v.trim();
                }
            }
        } catch (IOException e) {
            // unknown, below
        }
        return null;
    }

    /** The shims in use with this jar, one line each (hello's compat). */
    static List<String> inUse(DriverConfig config) {
        List<String> out = new ArrayList<>();
        if (!HAS_CLOSE_OPTIONS) {
            String line = "close: KafkaStreams.CloseOptions (no " + CLOSE_OPTIONS + " before 4.2)";
            if (config.leaveOnCloseSet) {
                line += "; " + LEAVE_ON_CLOSE + "=true so that stop leaves the group";
            }
            out.add(line);
        }
        return out;
    }

    /**
     * Before 4.2: has a dynamic member leave the group when it closes, as
     * `stop` does on 4.2+ (see the class comment), unless the driver is to
     * remain in the group or the properties name the consumer setting
     * themselves. Returns whether it set it.
     */
    static boolean applyLeaveOnClose(Properties streams, boolean leaveGroup) {
        if (HAS_CLOSE_OPTIONS || !leaveGroup) {
            return false;
        }
        String plain = "internal.leave.group.on.close";
        for (String key : new String[] {LEAVE_ON_CLOSE, plain, StreamsConfig.CONSUMER_PREFIX + plain}) {
            if (streams.containsKey(key)) {
                return false;
            }
        }
        streams.setProperty(LEAVE_ON_CLOSE, "true");
        return true;
    }

    /**
     * Closes the client within timeout. leaveGroup null closes with the
     * version's default membership operation; true leaves the group, false
     * remains in it (KafkaStreams#close(CloseOptions), through the class the
     * version has). Returns whether it closed within the timeout.
     */
    static boolean close(KafkaStreams streams, Duration timeout, Boolean leaveGroup) {
        try {
            return HAS_CLOSE_OPTIONS ? closeNew(streams, timeout, leaveGroup) : closeOld(streams, timeout, leaveGroup);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IllegalStateException("KafkaStreams.close: " + cause, cause);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("KafkaStreams.close through " + (HAS_CLOSE_OPTIONS ? CLOSE_OPTIONS : "KafkaStreams.CloseOptions") + ": " + e, e);
        }
    }

    /** 4.2+: CloseOptions.timeout(d).withGroupMembershipOperation(op). */
    private static boolean closeNew(KafkaStreams streams, Duration timeout, Boolean leaveGroup) throws ReflectiveOperationException {
        Class<?> options = Class.forName(CLOSE_OPTIONS);
        Object o = options.getMethod("timeout", Duration.class).invoke(null, timeout);
        if (leaveGroup != null) {
            Class<?> op = Class.forName(CLOSE_OPTIONS + "$GroupMembershipOperation");
            Object value = op.getField(leaveGroup ? "LEAVE_GROUP" : "REMAIN_IN_GROUP").get(null);
            o = options.getMethod("withGroupMembershipOperation", op).invoke(o, value);
        }
        Method close = KafkaStreams.class.getMethod("close", options);
        return (Boolean) close.invoke(streams, o);
    }

    /** Before 4.2: new KafkaStreams.CloseOptions().timeout(d).leaveGroup(b). */
    private static boolean closeOld(KafkaStreams streams, Duration timeout, Boolean leaveGroup) throws ReflectiveOperationException {
        Class<?> options = Class.forName(KafkaStreams.class.getName() + "$CloseOptions");
        Object o = options.getConstructor().newInstance();
        options.getMethod("timeout", Duration.class).invoke(o, timeout);
        if (leaveGroup != null) {
            options.getMethod("leaveGroup", boolean.class).invoke(o, leaveGroup);
        }
        Method close = KafkaStreams.class.getMethod("close", options);
        return (Boolean) close.invoke(streams, o);
    }
}
