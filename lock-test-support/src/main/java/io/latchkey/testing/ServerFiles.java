package io.latchkey.testing;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The temporary directory of one {@link RedisServer}: its {@code --dir}, its configuration file
 * if it has one, and the log that holds the output of every process it ran. Not thread-safe on
 * its own; the server serializes its use.
 */
final class ServerFiles {

    static final String CONFIG_FILE = "redis.conf";
    private static final int LOG_TAIL_BYTES = 4096;

    private final Path dir;
    private final Path logFile;
    private final List<String> leadingArgs;

    private ServerFiles(Path dir, List<String> leadingArgs) {
        this.dir = dir;
        this.logFile = dir.resolve("redis.log");
        this.leadingArgs = leadingArgs;
    }

    /**
     * @param config the content of the configuration file, or null for none
     * @return a new directory, with {@value #CONFIG_FILE} in it if {@code config} is given
     * @throws RedisFixtureException if the directory or the file cannot be written
     */
    static ServerFiles create(String config) {
        try {
            Path dir = Files.createTempDirectory("latchkey-redis-");
            if (config == null) {
                return new ServerFiles(dir, List.of());
            }
            Path file = dir.resolve(CONFIG_FILE);
            Files.writeString(file, config, StandardCharsets.UTF_8);
            return new ServerFiles(dir, List.of(file.toString()));
        } catch (IOException e) {
            throw new RedisFixtureException("cannot create a directory for redis-server", e);
        }
    }

    Path dir() {
        return dir;
    }

    Path logFile() {
        return logFile;
    }

    /** @return the arguments that come before the fixture's own: the configuration file, if any */
    List<String> leadingArgs() {
        return leadingArgs;
    }

    /** @return the log's length, where the output of the next process will start */
    long logSize() {
        try {
            return Files.exists(logFile) ? Files.size(logFile) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** Returns what the server logged from {@code offset} on, at most the last few kilobytes. */
    String readLog(long offset) {
        try (RandomAccessFile file = new RandomAccessFile(logFile.toFile(), "r")) {
            long start = Math.max(offset, file.length() - LOG_TAIL_BYTES);
            byte[] bytes = new byte[(int) (file.length() - start)];
            file.seek(start);
            file.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** @return the log from {@code offset} on, worded to end a failure's message */
    String logTail(long offset) {
        String tail = readLog(offset).strip();
        return tail.isEmpty() ? "; " + logFile + " is empty" : "; last lines of " + logFile + ":\n" + tail;
    }

    /** Deletes the directory and everything in it; does nothing if it is gone. */
    void delete() throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        }
    }
}
