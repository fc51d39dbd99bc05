package io.latchkey.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LeaseLostException;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.OneRedis;
import io.latchkey.testing.ProcessSignals;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The point of fencing tokens, shown end to end: a holder pauses past its lease (its JVM frozen
 * with SIGSTOP, or a fixed lease running out while it works), another owner takes the lock and
 * writes, and the paused holder then writes with its stale token. The resource, which keeps the
 * highest token it has seen ({@code fenced-write.lua}, as the README shows it), refuses that
 * write; the lock alone could not have stopped it. The paused holder also learns of its loss.
 */
class FencedWriteTest {

    private static final Duration CHILD_WATCHDOG = Duration.ofMillis(1500);
    /** Loss notice after the holder resumes: a renewal period and a command timeout, and room for a cold JVM. */
    private static final Duration NOTICE_AFTER_RESUME = Duration.ofSeconds(5);

    @RegisterExtension
    static final OneRedis REDIS = new OneRedis();

    private FencedResource resource;
    private String lockName;
    private String resourceKey;

    @BeforeEach
    void nameTheLockAndItsResource() {
        String id = UUID.randomUUID().toString();
        lockName = "latchkey-test:fenced:" + id;
        resourceKey = "latchkey-test:fenced-resource:" + id;
        resource = new FencedResource(REDIS.server().uri());
    }

    @AfterEach
    void closeResource() {
        resource.close();
    }

    private static LockClient newClient() {
        return LockClient.create(LockConfig.builder().address(REDIS.server().uri())
                .watchdogTimeout(Duration.ofSeconds(30)).commandTimeout(Duration.ofSeconds(2)).build());
    }

    @Test
    void aHolderFrozenPastItsLeaseIsRefusedByTheResourceAndLearnsOfItsLoss() throws Exception {
        Process child = startHolder();
        ChildOutput output = new ChildOutput(child);
        try (LockClient client = newClient()) {
            long staleToken = Long.parseLong(output.await(FencedHolderMain.TOKEN, Duration.ofSeconds(30)).text()
                    .substring(FencedHolderMain.TOKEN.length()));
            assertThat(staleToken).isPositive();

            ProcessSignals.stop(child.pid());
            // The frozen holder's watchdog cannot renew: once its lease runs out, another owner gets the lock.
            LockHold current = client.getLock(lockName).tryAcquire(CHILD_WATCHDOG.multipliedBy(5)).orElseThrow(
                    () -> new AssertionError("the frozen holder's lease never ran out"));
            assertThat(current.fencingToken()).isGreaterThan(staleToken);
            assertThat(resource.write(resourceKey, current.fencingToken(), "written by the current holder")).isTrue();

            // What the frozen holder reads when it goes on: its cue to write, with its stale token.
            OutputStream stdin = child.getOutputStream();
            stdin.write("go on\n".getBytes(StandardCharsets.UTF_8));
            stdin.flush();
            long resumed = System.nanoTime();
            ProcessSignals.resume(child.pid());

            assertThat(output.await(FencedHolderMain.WRITTEN, Duration.ofSeconds(10)).text())
                    .as("the resource refused the stale write").isEqualTo(FencedHolderMain.WRITTEN + "false");
            long noticedAfter = TimeUnit.NANOSECONDS.toMillis(
                    output.await(FencedHolderMain.LEASE_LOST, NOTICE_AFTER_RESUME).arrivedNanos() - resumed);
            assertThat(noticedAfter).as("ms from resume to leaseLost()").isLessThan(NOTICE_AFTER_RESUME.toMillis());
            assertThat(output.await(FencedHolderMain.VALID, Duration.ofSeconds(10)).text())
                    .isEqualTo(FencedHolderMain.VALID + "false");
            assertThat(output.await(FencedHolderMain.CLOSED, Duration.ofSeconds(10)).text())
                    .isEqualTo(FencedHolderMain.CLOSED + LeaseLostException.class.getSimpleName());
            assertThat(child.waitFor(10, TimeUnit.SECONDS)).as("the holder exits").isTrue();
            assertThat(child.exitValue()).as("the holder's exit code; its output:\n" + output.all()).isZero();

            assertThat(resource.value(resourceKey)).isEqualTo("written by the current holder");
            assertThat(resource.highestToken(resourceKey)).isEqualTo(current.fencingToken());
            assertThat(current.isValid()).as("the current holder was never disturbed").isTrue();
            current.close();
        } finally {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aHolderWhoseFixedLeaseRanOutWhileItWorkedIsRefusedByTheResource() throws Exception {
        try (LockClient slowClient = newClient(); LockClient nextClient = newClient()) {
            DistributedLock slowLock = slowClient.getLock(lockName);
            LockHold slow = slowLock.acquire(Duration.ofMillis(300));
            long staleToken = slow.fencingToken();
            assertThat(staleToken).isPositive();

            // The slow holder works past its lease; meanwhile the next owner gets the lock and writes.
            try (LockHold next = nextClient.getLock(lockName).tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
                assertThat(next.fencingToken()).isGreaterThan(staleToken);
                assertThat(resource.write(resourceKey, next.fencingToken(), "first write of the next holder")).isTrue();
                assertThat(resource.write(resourceKey, next.fencingToken(), "second write of the next holder"))
                        .as("one hold may write more than once").isTrue();

                assertThat(resource.write(resourceKey, staleToken, "written by the slow holder"))
                        .as("the resource refused the stale write").isFalse();
                await().atMost(Duration.ofSeconds(1)).until(() -> slow.leaseLost().isDone());
                assertThat(slow.isValid()).isFalse();
                assertThatThrownBy(slow::close).isInstanceOf(LeaseLostException.class);
                assertThat(next.isValid()).isTrue();
            }
            assertThat(resource.value(resourceKey)).isEqualTo("second write of the next holder");
        }
    }

    private Process startHolder() throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = List.of(java.toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                FencedHolderMain.class.getName(),
                REDIS.server().uri(), lockName, resourceKey, Long.toString(CHILD_WATCHDOG.toMillis()));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** The child's output, line by line with the time each arrived, kept whole for failure messages. */
    private static final class ChildOutput {

        record Line(String text, long arrivedNanos) {
        }

        private final List<Line> lines = new ArrayList<>();
        private boolean ended;

        ChildOutput(Process child) {
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(
                        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        add(new Line(line, System.nanoTime()));
                    }
                } catch (IOException e) {
                    add(new Line("(output failed: " + e + ")", System.nanoTime()));
                }
                synchronized (this) {
                    ended = true;
                    notifyAll();
                }
            }, "fenced-holder-output");
            reader.setDaemon(true);
            reader.start();
        }

        private synchronized void add(Line line) {
            lines.add(line);
            notifyAll();
        }

        /** @return the first line, so far or to come, that starts with {@code prefix} */
        synchronized Line await(String prefix, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                for (Line line : lines) {
                    if (line.text().startsWith(prefix)) {
                        return line;
                    }
                }
                long left = deadline - System.nanoTime();
                if (ended || left <= 0) {
                    throw new AssertionError("no line '" + prefix + "…' from the holder within " + timeout
                            + "; its output:\n" + all());
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }

        synchronized String all() {
            StringBuilder all = new StringBuilder();
            lines.forEach(line -> all.append(line.text()).append('\n'));
            return all.toString();
        }
    }
}
