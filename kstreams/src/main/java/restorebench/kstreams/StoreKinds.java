package restorebench.kstreams;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The store kinds the driver builds: restorebench.store.kind takes one of
 * their names. A kind is declared once, by its class: every class of this
 * package whose name ends in "Stores" and that implements
 * {@link StoreKindDef} is a kind, its instance the class's static KIND
 * field, found where this class was loaded from (the driver's jar, or the
 * build's classes directory) and placed by {@link StoreKindDef#order}. Two
 * kinds of one name or one order, or none found, fail the driver's start.
 */
final class StoreKinds {
    private StoreKinds() {}

    private static final String PACKAGE = StoreKinds.class.getPackageName();
    private static final String SUFFIX = "Stores";
    private static final Map<String, StoreKindDef> BY_KEY = load();

    /** The kinds found, by order. */
    private static Map<String, StoreKindDef> load() {
        List<StoreKindDef> kinds = new ArrayList<>();
        for (String name : classNames()) {
            StoreKindDef k = kindOf(name);
            if (k != null) {
                kinds.add(k);
            }
        }
        if (kinds.isEmpty()) {
            throw new IllegalStateException("no store kind class (" + PACKAGE + ".*" + SUFFIX + ") found");
        }
        kinds.sort(Comparator.comparingInt(StoreKindDef::order));
        Map<String, StoreKindDef> byKey = new LinkedHashMap<>();
        StoreKindDef last = null;
        for (StoreKindDef k : kinds) {
            if (byKey.put(k.key(), k) != null) {
                throw new IllegalStateException("store kind " + k.key() + " declared twice");
            }
            if (last != null && last.order() == k.order()) {
                throw new IllegalStateException("store kinds " + last.key() + " and " + k.key() + " share order " + k.order());
            }
            last = k;
        }
        return byKey;
    }

    /** The kind class name declares, null when it is no kind (not a StoreKindDef). */
    private static StoreKindDef kindOf(String name) {
        try {
            Class<?> c = Class.forName(PACKAGE + "." + name);
            if (c.isInterface() || !StoreKindDef.class.isAssignableFrom(c)) {
                return null;
            }
            Field f = c.getDeclaredField("KIND");
            if (!Modifier.isStatic(f.getModifiers())) {
                throw new IllegalStateException("store kind class " + name + ": KIND is not static");
            }
            f.setAccessible(true);
            return (StoreKindDef) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("store kind class " + name + ": " + e, e);
        }
    }

    /** The simple names of this package's top-level classes ending in SUFFIX, where this class was loaded from. */
    private static List<String> classNames() {
        File from;
        try {
            from = new File(StoreKinds.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("where the driver's classes are: " + e, e);
        }
        String dir = PACKAGE.replace('.', '/') + "/";
        List<String> out = new ArrayList<>();
        if (from.isDirectory()) {
            String[] files = new File(from, dir).list();
            for (String f : files == null ? new String[0] : files) {
                add(out, f);
            }
            return out;
        }
        try (JarFile jar = new JarFile(from)) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements();) {
                String n = e.nextElement().getName();
                if (n.startsWith(dir) && n.indexOf('/', dir.length()) < 0) {
                    add(out, n.substring(dir.length()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the driver's jar " + from, e);
        }
        return out;
    }

    private static void add(List<String> out, String file) {
        String cls = file.endsWith(".class") ? file.substring(0, file.length() - ".class".length()) : "";
        if (cls.endsWith(SUFFIX) && cls.indexOf('$') < 0) {
            out.add(cls);
        }
    }

    /** The kinds' names, in their order. */
    static List<String> keys() {
        return new ArrayList<>(BY_KEY.keySet());
    }

    /** The kind named value (any case), for the property key; an error naming the kinds otherwise. */
    static StoreKindDef of(String key, String value) throws DriverConfig.ConfigError {
        StoreKindDef k = BY_KEY.get(value.toLowerCase(Locale.ROOT));
        if (k == null) {
            List<String> names = keys();
            String last = names.remove(names.size() - 1);
            throw new DriverConfig.ConfigError(key + "=" + value + ": must be " + String.join(", ", names) + " or " + last);
        }
        return k;
    }
}
