package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.LockConfig;
import io.latchkey.testing.RedisServer;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationprocessor.json.JSONArray;
import org.springframework.boot.configurationprocessor.json.JSONObject;
import org.springframework.context.ConfigurableApplicationContext;

/** Every RedLock setting under {@code latchkey.redlock.*}; the old name still binds, marked deprecated. */
class PropertyNamesTest {

    private static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void theRedLockAttemptTimeoutBindsUnderRedlock() {
        try (ConfigurableApplicationContext context = TestApplication.run("latchkey.address=" + redis.uri(),
                "latchkey.redlock.attempt-timeout=250ms")) {
            assertThat(context.getBean(LockConfig.class).redLockAttemptTimeout()).isEqualTo(Duration.ofMillis(250));
        }
    }

    @Test
    void theOldNameStillBinds() {
        try (ConfigurableApplicationContext context = TestApplication.run("latchkey.address=" + redis.uri(),
                "latchkey.red-lock-attempt-timeout=250ms")) {
            assertThat(context.getBean(LockConfig.class).redLockAttemptTimeout()).isEqualTo(Duration.ofMillis(250));
        }
    }

    @Test
    void bothNamesWithTheSameValueBindAndDifferentValuesFailTheStartNamingBoth() {
        try (ConfigurableApplicationContext context = TestApplication.run("latchkey.address=" + redis.uri(),
                "latchkey.redlock.attempt-timeout=250ms", "latchkey.red-lock-attempt-timeout=250ms")) {
            assertThat(context.getBean(LockConfig.class).redLockAttemptTimeout()).isEqualTo(Duration.ofMillis(250));
        }
        assertThatThrownBy(() -> TestApplication.run("latchkey.address=" + redis.uri(),
                "latchkey.redlock.attempt-timeout=250ms", "latchkey.red-lock-attempt-timeout=300ms").close())
                .rootCause().isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("latchkey.redlock.attempt-timeout").hasMessageContaining("PT0.25S")
                .hasMessageContaining("latchkey.red-lock-attempt-timeout").hasMessageContaining("PT0.3S");
    }

    @Test
    void theMetadataMarksTheOldNameDeprecatedWithItsReplacement() throws Exception {
        JSONObject old = property("latchkey.red-lock-attempt-timeout");
        assertThat(old.has("deprecation")).as("%s", old).isTrue();
        assertThat(old.getJSONObject("deprecation").getString("replacement")).isEqualTo("latchkey.redlock.attempt-timeout");
        JSONObject current = property("latchkey.redlock.attempt-timeout");
        assertThat(current.has("deprecation")).as("%s", current).isFalse();
        assertThat(current.getString("type")).isEqualTo(Duration.class.getName());
    }

    @Test
    void everyLatchkeyPropertyOfTheReadmesSetupExistsUnderItsCurrentName() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String section = readme.substring(readme.indexOf("\n## Spring Boot\n"), readme.indexOf("\n## Metrics and events\n"));
        String properties = section.substring(section.indexOf("```properties\n"), section.indexOf("```\n", section.indexOf("```properties\n") + 3));
        Matcher names = Pattern.compile("(?m)^#?(latchkey\\.[a-z.-]+)=").matcher(properties);
        int count = 0;
        while (names.find()) {
            JSONObject property = property(names.group(1));
            assertThat(property.has("deprecation")).as("%s", property).isFalse();
            count++;
        }
        assertThat(count).isGreaterThan(10);
    }

    /**
     * The property as the configuration processor described it in the starter's own metadata, read
     * with the processor's own JSON classes (Spring Boot's basic parser, the only other one here,
     * does not read the nested deprecation objects).
     */
    private static JSONObject property(String name) throws Exception {
        URL starter = LatchkeyProperties.class.getProtectionDomain().getCodeSource().getLocation();
        for (URL url : Collections.list(PropertyNamesTest.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            if (!url.toString().contains(starter.toString())) {
                continue; // Spring Boot's own
            }
            try (InputStream in = url.openStream()) {
                JSONArray properties = new JSONObject(new String(in.readAllBytes(), StandardCharsets.UTF_8)).getJSONArray("properties");
                for (int i = 0; i < properties.length(); i++) {
                    if (name.equals(properties.getJSONObject(i).getString("name"))) {
                        return properties.getJSONObject(i);
                    }
                }
                throw new AssertionError("no " + name + " in " + url);
            }
        }
        throw new AssertionError("no metadata at " + starter);
    }
}
