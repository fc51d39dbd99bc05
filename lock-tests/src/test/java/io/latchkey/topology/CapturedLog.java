package io.latchkey.topology;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies what is written to {@code System.err} (where slf4j-simple logs) while it is open, so a
 * test can assert that something was logged, such as a lost lease. Not for concurrent tests.
 */
public final class CapturedLog implements AutoCloseable {

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    public CapturedLog() {
        OutputStream tee = new OutputStream() {
            @Override
            public void write(int b) {
                original.write(b);
                synchronized (copy) {
                    copy.write(b);
                }
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                original.write(bytes, offset, length);
                synchronized (copy) {
                    copy.write(bytes, offset, length);
                }
            }
        };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    /** @return whether a logged line contains every one of {@code parts} */
    public boolean hasLine(String... parts) {
        String text;
        synchronized (copy) {
            text = copy.toString(StandardCharsets.UTF_8);
        }
        return text.lines().anyMatch(line -> {
            for (String part : parts) {
                if (!line.contains(part)) {
                    return false;
                }
            }
            return true;
        });
    }

    /** @return how many logged lines contain {@code part} */
    public long count(String part) {
        String text;
        synchronized (copy) {
            text = copy.toString(StandardCharsets.UTF_8);
        }
        return text.lines().filter(line -> line.contains(part)).count();
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
