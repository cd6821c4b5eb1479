package restorebench.kstreams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;

import org.junit.jupiter.api.Test;

class CompatTest {
    private static boolean hasCloseOptions() {
        try {
            Class.forName(Compat.CLOSE_OPTIONS);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static Properties base() {
        Properties p = new Properties();
        p.setProperty("restorebench.instance.id", "i0");
        p.setProperty("restorebench.input.topic", "in");
        p.setProperty("application.id", "app");
        p.setProperty("bootstrap.servers", "127.0.0.1:9092");
        return p;
    }

    @Test
    void versionsAreTheJarsOnTheClassPath() {
        // The pom pins kafka-clients through kafka-streams: one version.
        assertEquals(Compat.kafkaClientsVersion(), Compat.kafkaStreamsVersion());
        assertFalse(Compat.kafkaStreamsVersion().isBlank());
    }

    @Test
    void leaveOnCloseOnlyWithoutCloseOptions() throws Exception {
        DriverConfig c = DriverConfig.parse(base());
        assertEquals(!hasCloseOptions(), c.leaveOnCloseSet);
        assertEquals(hasCloseOptions() ? null : "true", c.streams.getProperty(Compat.LEAVE_ON_CLOSE));
        assertEquals(hasCloseOptions() ? 0 : 1, Compat.inUse(c).size());
    }

    @Test
    void leaveOnCloseYieldsToTheUserAndToRemaining() throws Exception {
        Properties p = base();
        p.setProperty("consumer.internal.leave.group.on.close", "false");
        DriverConfig c = DriverConfig.parse(p);
        assertFalse(c.leaveOnCloseSet);
        assertEquals(null, c.streams.getProperty(Compat.LEAVE_ON_CLOSE));

        p = base();
        p.setProperty("restorebench.close.leave.group", "false");
        c = DriverConfig.parse(p);
        assertFalse(c.leaveOnCloseSet);
        assertTrue(Compat.inUse(c).size() == (hasCloseOptions() ? 0 : 1));
    }
}
