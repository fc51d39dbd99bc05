package io.latchkey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** {@link LockConfig.Builder#build()} rejects nonsense, naming the setting; no Redis needed. */
class LockConfigTest {

    private static final String URI = "redis://127.0.0.1:6379";

    private static void assertRejected(String setting, UnaryOperator<LockConfig.Builder> settings) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> settings.apply(LockConfig.builder()).build());
        assertTrue(e.getMessage() != null && e.getMessage().contains(setting),
                "the message names " + setting + ": " + e.getMessage());
    }

    @Test
    void defaultsAreThoseOfTheApi() {
        LockConfig config = LockConfig.builder().address(URI).build();
        assertEquals(Duration.ofSeconds(30), config.watchdogTimeout());
        assertEquals(Duration.ofMinutes(5), config.fairLockWaitTimeout());
        assertEquals(Duration.ofSeconds(3), config.commandTimeout());
        assertEquals(URI, config.address().orElseThrow());
        assertTrue(config.clusterAddresses().isEmpty());
        assertTrue(config.redLockAddresses().isEmpty());
    }

    @Test
    void noAddressIsRejected() {
        assertRejected("address", b -> b);
    }

    @Test
    void zeroOrNegativeDurationsAreRejectedNamingTheSetting() {
        for (Duration nonsense : List.of(Duration.ZERO, Duration.ofMillis(-1))) {
            assertRejected("watchdogTimeout", b -> b.address(URI).watchdogTimeout(nonsense));
            assertRejected("commandTimeout", b -> b.address(URI).commandTimeout(nonsense));
            assertRejected("fairLockWaitTimeout", b -> b.address(URI).fairLockWaitTimeout(nonsense));
            assertRejected("redLockAttemptTimeout", b -> b.address(URI).redLockAttemptTimeout(nonsense));
        }
    }

    @Test
    void commandTimeoutMustBeShorterThanHalfTheWatchdogTimeout() {
        assertRejected("commandTimeout", b -> b.address(URI)
                .watchdogTimeout(Duration.ofSeconds(2)).commandTimeout(Duration.ofSeconds(1)));
        assertRejected("watchdogTimeout", b -> b.address(URI)
                .watchdogTimeout(Duration.ofSeconds(2)).commandTimeout(Duration.ofSeconds(3)));
        LockConfig config = LockConfig.builder().address(URI)
                .watchdogTimeout(Duration.ofMillis(1500)).commandTimeout(Duration.ofMillis(400)).build();
        assertEquals(Duration.ofMillis(400), config.commandTimeout());
    }

    @Test
    void redLockAttemptTimeoutMustNotExceedTheCommandTimeout() {
        assertRejected("redLockAttemptTimeout", b -> b.address(URI)
                .commandTimeout(Duration.ofMillis(200)).redLockAttemptTimeout(Duration.ofMillis(300)));
    }

    @Test
    void fewerThanThreeRedLockMastersAreRejected() {
        assertRejected("redLockAddresses", b -> b.redLockAddresses(URI, "redis://127.0.0.1:6380"));
        assertRejected("redLockAddresses", b -> b.redLockAddresses(URI));
        LockConfig config = LockConfig.builder()
                .redLockAddresses(URI, "redis://127.0.0.1:6380", "redis://127.0.0.1:6381").build();
        assertEquals(3, config.redLockAddresses().size());
    }

    @Test
    void addressAndClusterTogetherAreRejected() {
        assertRejected("clusterAddresses", b -> b.address(URI).clusterAddresses("redis://127.0.0.1:7000"));
    }

    @Test
    void malformedUrisAreRejectedNamingTheSetting() {
        assertRejected("address", b -> b.address("not a uri"));
        assertRejected("clusterAddresses", b -> b.clusterAddresses("http://"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LockClient.create("not a uri"));
        assertTrue(e.getMessage().contains("address"), e.getMessage());
    }

    @Test
    void nullsAreRejectedAtOnce() {
        LockConfig.Builder builder = LockConfig.builder();
        List<Executable> calls = List.of(
                () -> builder.address(null),
                () -> builder.clusterAddresses((String[]) null),
                () -> builder.redLockAddresses((String[]) null),
                () -> builder.clusterAddresses(URI, null),
                () -> builder.watchdogTimeout(null),
                () -> builder.fairLockWaitTimeout(null),
                () -> builder.commandTimeout(null),
                () -> builder.redLockAttemptTimeout(null),
                () -> LockClient.create((LockConfig) null),
                () -> LockClient.create((String) null));
        for (Executable call : calls) {
            assertThrows(NullPointerException.class, call);
        }
    }

    @Test
    void aMalformedUriIsRejectedWithoutShowingItsPassword() {
        IllegalArgumentException rejected = assertThrows(IllegalArgumentException.class,
                () -> LockConfig.builder().address("redis://app:s3cret@local host:6379").build());

        assertTrue(rejected.getMessage().contains("address"), rejected.getMessage());
        assertFalse(rejected.getMessage().contains("s3cret"), rejected.getMessage());
        assertEquals(null, rejected.getCause(), "the parser's exception repeats the URI");
    }
}
