package restorebench.kstreams;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The store kinds the driver builds, each listed once: restorebench.store.kind
 * takes one of their names. Two kinds of one name fail the driver's start.
 */
final class StoreKinds {
    private StoreKinds() {}

    private static final Map<String, StoreKindDef> BY_KEY = new LinkedHashMap<>();

    static {
        for (StoreKindDef k : List.of(KeyValueStores.KIND, TimestampedKeyValueStores.KIND, WindowStores.KIND,
                TimestampedWindowStores.KIND, SessionStores.KIND, VersionedStores.KIND)) {
            if (BY_KEY.put(k.key(), k) != null) {
                throw new IllegalStateException("store kind " + k.key() + " listed twice");
            }
        }
    }

    /** The kind named value (any case), for the property key; an error naming the kinds otherwise. */
    static StoreKindDef of(String key, String value) throws DriverConfig.ConfigError {
        StoreKindDef k = BY_KEY.get(value.toLowerCase(Locale.ROOT));
        if (k == null) {
            List<String> names = new ArrayList<>(BY_KEY.keySet());
            String last = names.remove(names.size() - 1);
            throw new DriverConfig.ConfigError(key + "=" + value + ": must be " + String.join(", ", names) + " or " + last);
        }
        return k;
    }
}
