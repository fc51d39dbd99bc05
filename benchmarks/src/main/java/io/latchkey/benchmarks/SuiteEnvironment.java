package io.latchkey.benchmarks;

import io.latchkey.testing.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Properties;

/** What the suite's report says about where and with what it ran. */
final class SuiteEnvironment {

    private SuiteEnvironment() {
    }

    /** @return the report's first line: when, on what machine and JDK, against which Redis, with which versions */
    static String describe(RedisServer server) {
        Runtime runtime = Runtime.getRuntime();
        return String.format(Locale.ROOT,
                "%s | %d cores, %s %s (%s) | JDK %s (%s) | redis-server %s | Latchkey %s (local hand-off %s), Redisson %s,"
                        + " Spring Integration %s, Lettuce %s, JMH %s",
                ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME),
                runtime.availableProcessors(), System.getProperty("os.name"), System.getProperty("os.version"),
                System.getProperty("os.arch"), System.getProperty("java.runtime.version"), System.getProperty("java.vm.name"),
                server.version(), version("io.latchkey", "lock-core"), LatchkeyBackend.LOCAL_HAND_OFF ? "on" : "off",
                version("org.redisson", "redisson"),
                version("org.springframework.integration", "spring-integration-redis"),
                version("io.lettuce", "lettuce-core"), version("org.openjdk.jmh", "jmh-core"));
    }

    /** @return the version of a library on the class path, from its Maven metadata; "(dev)" for a module of this build run from its classes */
    static String version(String group, String artifact) {
        String resource = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = SuiteEnvironment.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return "(dev)";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "?");
        } catch (IOException e) {
            return "?";
        }
    }
}
