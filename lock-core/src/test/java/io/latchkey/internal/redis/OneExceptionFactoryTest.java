package io.latchkey.internal.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A guard, read from the sources: every {@code LockException} (and subtype) and every
 * {@code IllegalMonitorStateException} the library throws is built by {@link LockExceptions}, or,
 * for RedLock's own situations, by lock-redlock's {@code RedLockFailures}, so that each situation
 * has one message and one type.
 */
class OneExceptionFactoryTest {

    private static final Pattern CONSTRUCTION = Pattern.compile(
            "new\\s+(Lock\\w*Exception|IllegalMonitorStateException)\\s*\\(");
    private static final String FACTORY = "LockExceptions.java";
    /** RedLock's situations, in lock-redlock: the factory in core does not know RedLock's words. */
    private static final String REDLOCK_FACTORY = "RedLockFailures.java";
    /**
     * The modules that the factory's package is exported to. The integrations built on the
     * public API (lock-spring) have exceptions of their own, such as Spring's
     * {@code LockNotAcquiredException}, and cannot reach the factory.
     */
    private static final List<String> LIBRARY_MODULES = List.of("lock-core", "lock-fair", "lock-redlock");

    @Test
    void onlyTheFactoryBuildsLockExceptionsAndIllegalMonitorStateExceptions() throws IOException {
        Path root = projectRoot();
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(dir -> LIBRARY_MODULES.contains(dir.getFileName().toString())).toList()) {
                Path main = module.resolve("src/main/java");
                if (Files.isDirectory(main)) {
                    try (Stream<Path> files = Files.walk(main)) {
                        files.filter(file -> file.toString().endsWith(".java")).forEach(sources::add);
                    }
                }
            }
        }
        assertTrue(sources.stream().anyMatch(file -> file.endsWith(Path.of("io/latchkey/internal/redis", FACTORY))),
                "the scan must see the factory itself; it saw " + sources.size() + " files under " + root);
        assertTrue(sources.stream().anyMatch(file -> file.toString().contains("lock-redlock")),
                "the scan must see every module");

        List<String> found = new ArrayList<>();
        for (Path file : sources) {
            if (file.getFileName().toString().equals(FACTORY) || file.getFileName().toString().equals(REDLOCK_FACTORY)) {
                continue;
            }
            List<String> lines = read(file);
            for (int i = 0; i < lines.size(); i++) {
                Matcher matcher = CONSTRUCTION.matcher(lines.get(i));
                if (matcher.find()) {
                    found.add(root.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        assertEquals(List.of(), found, "build these in " + FACTORY + " (or " + REDLOCK_FACTORY + "), with a method named after the situation");
    }

    /** Surefire runs in the module's directory; the project root is the one above lock-core. */
    private static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("lock-core/src/main/java"))) {
            dir = dir.getParent();
        }
        assertTrue(dir != null, "no project root above " + Path.of("").toAbsolutePath());
        return dir;
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
