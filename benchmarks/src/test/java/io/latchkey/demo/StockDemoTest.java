package io.latchkey.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StockDemoTest {

    @Test
    @Timeout(60)
    void sellsTheWholeStockExactlyOnceAndExitsWithZero() {
        Output output = run("--instances", "2", "--threads", "3", "--stock", "200", "--timeout", "40");

        assertEquals(StockDemo.PASSED, output.status, output::describe);
        assertTrue(output.out.contains("sell 200 items under one reentrant lock"), output::describe);
        assertTrue(output.out.matches("(?s).*\\n  #1 +\\d[\\d,]* +\\d+\\.\\d %.*"), output::describe);
        assertTrue(output.out.matches("(?s).*\\n  total +200 +100\\.0 %.*"), output::describe);
        assertTrue(output.out.matches("(?s).*\\n  sold == stock \\(200\\) +200 +ok\\n.*"), output::describe);
        assertTrue(output.out.matches("(?s).*\\n  oversold +0 +ok\\n.*"), output::describe);
        assertTrue(output.out.matches("(?s).*\\n  two holders at once +0 +ok\\n.*"), output::describe);
        assertTrue(output.out.matches("(?s).*\\n  stock left in Redis +0 +ok\\n.*"), output::describe);
        assertTrue(output.out.contains("PASS: 200 items sold exactly once by 2 instances × 3 threads"), output::describe);
    }

    @ParameterizedTest
    @ValueSource(strings = {"fair", "red"})
    @Timeout(60)
    void otherLockKindsSellTheStockOrSayWhichModuleIsMissing(String kind) {
        Output output = run("--lock", kind, "--instances", "2", "--threads", "2", "--stock", "60", "--timeout", "40");

        if (output.status == StockDemo.USAGE) {
            String module = kind.equals("fair") ? "io.latchkey:lock-fair" : "io.latchkey:lock-redlock";
            assertTrue(output.err.contains("--lock " + kind + ": ") && output.err.contains(module), output::describe);
        } else {
            assertEquals(StockDemo.PASSED, output.status, output::describe);
            assertTrue(output.out.contains("PASS: 60 items sold exactly once by 2 instances × 2 threads"), output::describe);
        }
    }

    @Test
    @Timeout(90)
    void segmentedLockSellsEachSegmentExactlyOnceAndReportsTheSpeedUpOverOneLock() {
        Output output = run("--lock", "segmented", "--segments", "4", "--instances", "2", "--threads", "3", "--stock", "203",
                "--timeout", "40");

        assertEquals(StockDemo.PASSED, output.status, output::describe);
        assertTrue(output.out.contains("Phase 1 of 2") && output.out.contains("sell 203 items under one reentrant lock"),
                output::describe);
        assertTrue(output.out.contains("Phase 2 of 2") && output.out.contains("sell 203 items in 4 segments, each under its own"),
                output::describe);
        assertTrue(output.out.contains("PASS: 203 items sold exactly once by 2 instances × 3 threads"), output::describe);
        assertTrue(output.out.contains("segmented lock, 4 segments)"), output::describe);
        assertTrue(output.out.matches("(?s).*\\n  items sold twice +0 +ok\\n.*"), output::describe);
        assertTrue(output.out.matches("(?s).*\\n  two holders at once +0 +ok\\n.*"), output::describe);
        assertTrue(output.out.matches("(?s).*\\n  stock left in Redis +0 +ok\\n.*"), output::describe);
        assertTrue(output.out.matches("(?s).*\\nSpeed-up over one lock: [\\d,]+ sales/s under one lock .* over 4 segments .*: × \\d+\\.\\d\\n.*"),
                output::describe);
    }

    @Test
    void helpPrintsTheOptionsAndExitsWithZero() {
        Output output = run("--help");

        assertEquals(StockDemo.PASSED, output.status, output::describe);
        for (String option : new String[] {"--instances", "--threads", "--stock", "--lock", "--segments", "--redis", "--help"}) {
            assertTrue(output.out.contains(option), () -> option + " missing from\n" + output.describe());
        }
    }

    @Test
    void badUsageExitsWithTwoAndSaysWhy() {
        Output unknownLock = run("--lock", "spin");
        Output zeroStock = run("--stock", "0");
        Output redWithOneMaster = run("--lock", "red", "--redis", "redis://127.0.0.1:6379");
        Output segmentsOfOneLock = run("--segments", "4");
        Output moreSegmentsThanStock = run("--lock", "segmented", "--segments", "10", "--stock", "5");

        assertEquals(StockDemo.USAGE, unknownLock.status, unknownLock::describe);
        assertTrue(unknownLock.err.contains("--lock must be plain, fair, red or segmented: spin"), unknownLock::describe);
        assertEquals(StockDemo.USAGE, zeroStock.status, zeroStock::describe);
        assertTrue(zeroStock.err.contains("--stock must be between 1 and"), zeroStock::describe);
        assertEquals(StockDemo.USAGE, redWithOneMaster.status, redWithOneMaster::describe);
        assertTrue(redWithOneMaster.err.contains("at least 3"), redWithOneMaster::describe);
        assertEquals(StockDemo.USAGE, segmentsOfOneLock.status, segmentsOfOneLock::describe);
        assertTrue(segmentsOfOneLock.err.contains("--segments needs --lock segmented"), segmentsOfOneLock::describe);
        assertEquals(StockDemo.USAGE, moreSegmentsThanStock.status, moreSegmentsThanStock::describe);
        assertTrue(moreSegmentsThanStock.err.contains("--segments must not exceed --stock"), moreSegmentsThanStock::describe);
    }

    private static Output run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long began = System.nanoTime();
        int status = StockDemo.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new Output(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                Duration.ofNanos(System.nanoTime() - began));
    }

    private static final class Output {
        final int status;
        final String out;
        final String err;
        final Duration took;

        Output(int status, String out, String err, Duration took) {
            this.status = status;
            this.out = out;
            this.err = err;
            this.took = took;
        }

        String describe() {
            return "exit status " + status + " after " + took.toMillis() + " ms\n--- out ---\n" + out + "--- err ---\n" + err;
        }
    }
}
