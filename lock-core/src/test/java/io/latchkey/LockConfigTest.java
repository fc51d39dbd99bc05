package io.latchkey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
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
    void defaultsWithNothingElseSet() {
        LockConfig config = LockConfig.builder().address(URI).build();
        assertEquals(Duration.ofSeconds(30), config.watchdogTimeout());
        assertEquals(Duration.ofSeconds(30), config.fairLockWaitTimeout(), "the watchdog timeout");
        assertEquals(Duration.ofSeconds(3), config.commandTimeout());
        assertEquals(Duration.ofMillis(100), config.redLockAttemptTimeout());
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
    void durationsOverAYearAreRejectedNamingTheSettingAndTheCap() {
        // A watchdog of 1,000 years once failed with an ArithmeticException, and a longer lease
        // than Redis's scripts can read left a hold without an expiry.
        for (Duration absurd : List.of(Duration.ofDays(366), Duration.ofDays(365_000), Duration.ofSeconds(Long.MAX_VALUE))) {
            assertRejected("watchdogTimeout", b -> b.address(URI).watchdogTimeout(absurd));
            assertRejected("PT8760H", b -> b.address(URI).watchdogTimeout(absurd));
            assertRejected("fairLockWaitTimeout", b -> b.address(URI).fairLockWaitTimeout(absurd));
            assertRejected("commandTimeout", b -> b.address(URI).commandTimeout(absurd));
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
    void anUnsetCommandTimeoutFitsAShortWatchdogTimeout() {
        LockConfig config = LockConfig.builder().address(URI).watchdogTimeout(Duration.ofSeconds(1)).build();
        assertEquals(Duration.ofSeconds(1), config.watchdogTimeout());
        assertEquals(Duration.ofMillis(250), config.commandTimeout(), "a quarter of the watchdog timeout");
        assertEquals(Duration.ofMillis(100), config.redLockAttemptTimeout());

        config = LockConfig.builder().address(URI).watchdogTimeout(Duration.ofMillis(200)).build();
        assertEquals(Duration.ofMillis(50), config.commandTimeout());
        assertEquals(Duration.ofMillis(50), config.redLockAttemptTimeout(), "never above the command timeout");

        config = LockConfig.builder().address(URI).watchdogTimeout(Duration.ofMinutes(10)).build();
        assertEquals(Duration.ofSeconds(3), config.commandTimeout(), "never above 3 s");
    }

    @Test
    void anUnsetFairLockWaitTimeoutIsTheWatchdogTimeout() {
        // A crashed fair waiter then stalls the queue no longer than a crashed holder.
        LockConfig config = LockConfig.builder().address(URI).watchdogTimeout(Duration.ofSeconds(1)).build();
        assertEquals(Duration.ofSeconds(1), config.fairLockWaitTimeout());
        config = LockConfig.builder().address(URI).commandTimeout(Duration.ofSeconds(10)).build();
        assertEquals(Duration.ofSeconds(40), config.fairLockWaitTimeout(), "also a watchdog timeout that was derived");
        config = LockConfig.builder().address(URI).watchdogTimeout(Duration.ofSeconds(1))
                .fairLockWaitTimeout(Duration.ofMinutes(5)).build();
        assertEquals(Duration.ofMinutes(5), config.fairLockWaitTimeout(), "one that was set is kept");
    }

    @Test
    void anUnsetWatchdogTimeoutFitsALongCommandTimeout() {
        LockConfig config = LockConfig.builder().address(URI).commandTimeout(Duration.ofSeconds(10)).build();
        assertEquals(Duration.ofSeconds(40), config.watchdogTimeout(), "four command timeouts");
        assertEquals(Duration.ofSeconds(10), config.commandTimeout());

        config = LockConfig.builder().address(URI).commandTimeout(Duration.ofSeconds(1)).build();
        assertEquals(Duration.ofSeconds(30), config.watchdogTimeout(), "never below 30 s");
    }

    @Test
    void anUnsetRedLockAttemptTimeoutFitsAShortCommandTimeout() {
        LockConfig config = LockConfig.builder().address(URI).commandTimeout(Duration.ofMillis(50)).build();
        assertEquals(Duration.ofMillis(50), config.redLockAttemptTimeout());
    }

    @Test
    void anUnsetCommandTimeoutMakesRoomForALongRedLockAttemptTimeout() {
        LockConfig config = LockConfig.builder().address(URI).redLockAttemptTimeout(Duration.ofSeconds(5)).build();
        assertEquals(Duration.ofSeconds(5), config.commandTimeout());
        assertEquals(Duration.ofSeconds(30), config.watchdogTimeout());

        config = LockConfig.builder().address(URI).redLockAttemptTimeout(Duration.ofSeconds(10)).build();
        assertEquals(Duration.ofSeconds(10), config.commandTimeout());
        assertEquals(Duration.ofSeconds(40), config.watchdogTimeout());
    }

    @Test
    void contradictingSettingsAreRejectedOnlyWhenBothWereSetNamingBoth() {
        List<UnaryOperator<LockConfig.Builder>> contradictions = List.of(
                b -> b.watchdogTimeout(Duration.ofSeconds(2)).commandTimeout(Duration.ofSeconds(1)),
                b -> b.commandTimeout(Duration.ofMillis(200)).redLockAttemptTimeout(Duration.ofMillis(300)),
                b -> b.watchdogTimeout(Duration.ofSeconds(1)).redLockAttemptTimeout(Duration.ofMillis(600)));
        List<List<String>> named = List.of(
                List.of("commandTimeout", "watchdogTimeout"),
                List.of("redLockAttemptTimeout", "commandTimeout"),
                List.of("redLockAttemptTimeout", "watchdogTimeout"));
        for (int i = 0; i < contradictions.size(); i++) {
            UnaryOperator<LockConfig.Builder> settings = contradictions.get(i);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> settings.apply(LockConfig.builder().address(URI)).build());
            for (String setting : named.get(i)) {
                assertTrue(e.getMessage().contains(setting), "the message names " + setting + ": " + e.getMessage());
            }
        }
        // Each of those settings alone fits the defaults.
        LockConfig.builder().address(URI).watchdogTimeout(Duration.ofSeconds(1)).build();
        LockConfig.builder().address(URI).commandTimeout(Duration.ofSeconds(20)).build();
        LockConfig.builder().address(URI).redLockAttemptTimeout(Duration.ofSeconds(20)).build();
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
    void noRejectionShowsAPasswordEvenOneWithSlashesOrAtSigns() {
        // Each password, and the part of it that a redaction up to its first '/' or '@' would show.
        Map<String, String> passwords = Map.of("s3cret", "s3cret", "s3/cret", "cret", "s3@cret", "cret", "s3#cr?et", "cr?et");
        for (Map.Entry<String, String> entry : passwords.entrySet()) {
            String password = entry.getKey();
            String secret = entry.getValue();
            String valid = "redis://app:" + password + "@127.0.0.1:6379";
            List<UnaryOperator<LockConfig.Builder>> rejected = List.of(
                    b -> b.address(valid).clusterAddresses("redis://app:" + password + "@127.0.0.1:7000"),
                    b -> b.redLockAddresses(valid, valid, "redis://127.0.0.1:6381"),
                    b -> b.address("redis://app:" + password + "@local host:6379"),
                    b -> b.clusterAddresses("redis://app:" + password + "@local host:7000"),
                    b -> b.redLockAddresses("redis://app:" + password + "@local host:6379",
                            "redis://127.0.0.1:6380", "redis://127.0.0.1:6381"));
            for (UnaryOperator<LockConfig.Builder> settings : rejected) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> settings.apply(LockConfig.builder()).build());
                for (Throwable t = e; t != null; t = t.getCause()) {
                    assertFalse(String.valueOf(t.getMessage()).contains(secret), "the password shows: " + t.getMessage());
                }
            }
        }
    }

    @Test
    void credentialsWithAnUnencodedHashQuestionMarkOrSlashAreRejectedWithTheAdviceToPercentEncode() {
        // Before: "redis://locker:S3c#ret@host" connected to host "locker" and asked DNS for it,
        // the password's start in the message and on the wire (issue 27, finding 7).
        for (String uri : List.of("redis://locker:S3c#ret@127.0.0.1:6379", "redis://locker:S3c?ret@127.0.0.1:6379",
                "rediss://app:S3c/ret@127.0.0.1:6379", "redis-sentinel://S3c#ret@127.0.0.1:26379/0#mymaster")) {
            IllegalArgumentException rejected = assertThrows(IllegalArgumentException.class,
                    () -> LockConfig.builder().address(uri).build());
            assertTrue(rejected.getMessage().contains("percent-encode them (%23, %3F, %2F)"), rejected.getMessage());
            assertFalse(rejected.getMessage().contains("S3c") || rejected.getMessage().contains("ret@"), rejected.getMessage());
        }
        assertTrue(LockConfig.builder().address("redis://locker:S3c%23ret@127.0.0.1:6379").build().address().isPresent());
        assertTrue(LockConfig.builder().address("redis-sentinel://S3cret@127.0.0.1:26379/0#mymaster").build().address().isPresent());
    }

    @Test
    void tlsManagersAndACertificateFileTogetherAreRejected() throws Exception {
        javax.net.ssl.TrustManagerFactory trust = javax.net.ssl.TrustManagerFactory.getInstance(
                javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        java.nio.file.Path pem = java.nio.file.Files.createTempFile("ca", ".pem");
        try {
            assertRejected("tlsManagers", b -> b.address(URI).trustedCertificates(pem).tlsManagers(trust, null));
            assertTrue(LockConfig.builder().address(URI).tlsManagers(trust, null).build().tls().managers().isPresent());
            assertThrows(NullPointerException.class, () -> LockConfig.builder().tlsManagers(null, null));
        } finally {
            java.nio.file.Files.delete(pem);
        }
    }

    @Test
    void theRedisTargetShowsNoPartOfAPasswordEvenOneWithAnAtSign() {
        // Before, the starter's health detail used a redaction of its own that stopped at the
        // first '@': "redis-sentinel://***@r3t@..." (issue 27, finding 8).
        assertEquals("redis-sentinel://***@127.0.0.1:26379/0#mymaster",
                LockConfig.builder().address("redis-sentinel://app:p@r3t@127.0.0.1:26379/0#mymaster").build().redisTarget());
        assertEquals("cluster [redis://***@127.0.0.1:7000]",
                LockConfig.builder().clusterAddresses("redis://app:p@r3t@127.0.0.1:7000").build().redisTarget());
        assertEquals("redlock [redis://***@127.0.0.1:6380, redis://127.0.0.1:6381, redis://127.0.0.1:6382]",
                LockConfig.builder().redLockAddresses("redis://a:p@r3t@127.0.0.1:6380", "redis://127.0.0.1:6381",
                        "redis://127.0.0.1:6382").build().redisTarget());
    }

    @Test
    void aMalformedUriIsRejectedWithoutShowingItsPassword() {
        IllegalArgumentException rejected = assertThrows(IllegalArgumentException.class,
                () -> LockConfig.builder().address("redis://app:s3cret@local host:6379").build());

        assertTrue(rejected.getMessage().contains("address"), rejected.getMessage());
        assertFalse(rejected.getMessage().contains("s3cret"), rejected.getMessage());
        assertEquals(null, rejected.getCause(), "the parser's exception repeats the URI");
    }

    @Test
    void replicaAcknowledgementIsOffByDefaultAndKeptAsSet() {
        assertTrue(LockConfig.builder().address("redis://localhost").build().replicaAcknowledgement().isEmpty());
        LockConfig config = LockConfig.builder().address("redis://localhost")
                .replicaAcknowledgement(2, Duration.ofMillis(50), LockConfig.ReplicaShortfall.WARN).build();
        assertEquals(new ReplicaAcknowledgement(2, Duration.ofMillis(50), LockConfig.ReplicaShortfall.WARN),
                config.replicaAcknowledgement().orElseThrow());
        assertTrue(config.toString().contains("replicaAcknowledgement=ReplicaAcknowledgement[replicas=2"), config.toString());
    }

    @Test
    void localHandOffIsOnByDefaultWithTheDefaultBoundsAndNoLocalHandOffTurnsItOff() {
        LockConfig byDefault = LockConfig.builder().address("redis://localhost").build();
        assertEquals(LocalHandOff.DEFAULT, byDefault.localHandOff().orElseThrow());
        assertEquals(new LocalHandOff(32, Duration.ofMillis(20)), LocalHandOff.DEFAULT);
        assertTrue(byDefault.toString().contains("localHandOff=LocalHandOff[maxHandOffs=32, maxTime=PT0.02S]"), byDefault.toString());

        LockConfig off = LockConfig.builder().address("redis://localhost").noLocalHandOff().build();
        assertTrue(off.localHandOff().isEmpty());
        assertTrue(off.toString().contains("localHandOff=off"), off.toString());
        assertEquals(new LocalHandOff(4, Duration.ofMillis(5)), LockConfig.builder().address("redis://localhost")
                .noLocalHandOff().localHandOff(4, Duration.ofMillis(5)).build().localHandOff().orElseThrow());
        assertEquals(LocalHandOff.DEFAULT, LockConfig.builder().address("redis://localhost")
                .noLocalHandOff().localHandOff().build().localHandOff().orElseThrow());
    }

    @Test
    void replicaAcknowledgementRejectsNonsenseNamingTheArgument() {
        LockConfig.Builder builder = LockConfig.builder().address("redis://localhost");
        IllegalArgumentException noReplica = assertThrows(IllegalArgumentException.class,
                () -> builder.replicaAcknowledgement(0, Duration.ofMillis(50), LockConfig.ReplicaShortfall.FAIL));
        assertTrue(noReplica.getMessage().contains("replicas must be at least 1: 0"), noReplica.getMessage());
        // WAIT counts whole milliseconds, and WAIT n 0 would wait for ever.
        IllegalArgumentException subMillisecond = assertThrows(IllegalArgumentException.class,
                () -> builder.replicaAcknowledgement(1, Duration.ofNanos(999_999), LockConfig.ReplicaShortfall.FAIL));
        assertTrue(subMillisecond.getMessage().contains("timeout must be at least 1 ms"), subMillisecond.getMessage());
        NullPointerException noTimeout = assertThrows(NullPointerException.class,
                () -> builder.replicaAcknowledgement(1, null, LockConfig.ReplicaShortfall.FAIL));
        assertEquals("timeout", noTimeout.getMessage());
        NullPointerException noPolicy = assertThrows(NullPointerException.class,
                () -> builder.replicaAcknowledgement(1, Duration.ofMillis(50), null));
        assertEquals("onShortfall", noPolicy.getMessage());
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class, () -> builder
                .replicaAcknowledgement(1, Duration.ofSeconds(3), LockConfig.ReplicaShortfall.FAIL).build());
        assertTrue(tooLong.getMessage().contains("must be shorter than the commandTimeout (PT3S)"), tooLong.getMessage());
    }

    @Test
    void theKeyPrefixIsLatchkeyUnlessSetAndShownInToString() {
        LockConfig byDefault = LockConfig.builder().address(URI).build();
        assertEquals("latchkey", byDefault.keyPrefix());
        assertTrue(byDefault.toString().contains("keyPrefix=latchkey"), byDefault.toString());
        LockConfig billing = LockConfig.builder().address(URI).keyPrefix("team-1:billing.\u00fc\uD83D\uDD12").build();
        assertEquals("team-1:billing.\u00fc\uD83D\uDD12", billing.keyPrefix());
        assertTrue(billing.toString().contains("keyPrefix=team-1:billing."), billing.toString());
        assertEquals(64, LockConfig.builder().address(URI).keyPrefix("p".repeat(64)).build().keyPrefix().length());
    }

    @Test
    void keyPrefixesThatCouldMoveASlotOrWidenAnAclPatternAreRejectedNamingTheSetting() {
        for (String prefix : List.of("", "p".repeat(65), "a{b", "a}b", "{t}", "app:", "a b", "tab\t", "nl\n", "nul\u0000",
                "nbsp\u00a0", "zw\u200b", "lone\uD800", "app*", "a?p", "a[b]", "a\\b")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> LockConfig.builder().address(URI).keyPrefix(prefix), prefix);
            assertTrue(e.getMessage().startsWith("keyPrefix "), e.getMessage());
            assertFalse(e.getMessage().chars().anyMatch(c -> c < 0x20), () -> "no control character in " + e.getMessage());
        }
        IllegalArgumentException colon = assertThrows(IllegalArgumentException.class,
                () -> LockConfig.builder().keyPrefix("app:"));
        assertTrue(colon.getMessage().contains("must not end with ':'"), colon.getMessage());
        IllegalArgumentException control = assertThrows(IllegalArgumentException.class,
                () -> LockConfig.builder().keyPrefix("a\r\nb"));
        assertTrue(control.getMessage().contains("U+000D at index 1 in 'a\\u000D\\u000Ab'"), control.getMessage());
        assertThrows(NullPointerException.class, () -> LockConfig.builder().keyPrefix(null));
    }
}
