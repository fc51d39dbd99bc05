package io.latchkey;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The redaction that every address in {@link LockConfig#toString()}, the log lines and the
 * exception messages goes through, checked through {@code toString()} so that it holds wherever
 * the helper lives: user and password never show, whatever characters the password holds; the
 * scheme, host, port, database and options do. (LockConfigTest checks the rejection messages.)
 */
class UriRedactionTest {

    @Test
    void theUserAndPasswordAreReplacedAndTheRestIsKept() {
        Map<String, String> shown = Map.of(
                "redis://app:s3cret@127.0.0.1:6379", "redis://***@127.0.0.1:6379",
                "redis://:s3cret@127.0.0.1:6379/2", "redis://***@127.0.0.1:6379/2",
                "rediss://s3cret@cache.example:6380?timeout=5s", "rediss://***@cache.example:6380?timeout=5s",
                "redis-sentinel://s3cret@h1:26379,h2:26379/0#mymaster", "redis-sentinel://***@h1:26379,h2:26379/0#mymaster");
        shown.forEach((uri, expected) -> {
            String config = LockConfig.builder().address(uri).build().toString();
            assertTrue(config.contains("address=" + expected + ","), config);
            assertFalse(config.contains("s3cret"), config);
        });
    }

    @Test
    void noPartOfAPasswordWithAtSignsOrColonsShows() {
        for (String password : List.of("x1@y2", "x1:y2@z3", "x1@@y2")) {
            String config = LockConfig.builder().address("redis://app:" + password + "@127.0.0.1:6379").build().toString();
            assertTrue(config.contains("address=redis://***@127.0.0.1:6379,"), config);
            for (String part : password.split("[@:]+")) {
                assertFalse(config.contains(part), part + " shows: " + config);
            }
        }
    }

    @Test
    void aUriWithoutCredentialsIsShownAsItIs() {
        for (String uri : List.of("redis://127.0.0.1:6379", "rediss://cache.example:6380/3?timeout=5s")) {
            String config = LockConfig.builder().address(uri).build().toString();
            assertTrue(config.contains("address=" + uri + ","), config);
        }
    }

    @Test
    void everyRedLockAndClusterAddressIsRedactedToo() {
        String password = "s3@cret";
        LockConfig redLock = LockConfig.builder().redLockAddresses("redis://app:" + password + "@127.0.0.1:6379",
                "redis://app:" + password + "@127.0.0.1:6380", "redis://127.0.0.1:6381").build();
        LockConfig cluster = LockConfig.builder().clusterAddresses("redis://app:" + password + "@127.0.0.1:7000",
                "redis://:" + password + "@127.0.0.1:7001").build();

        assertTrue(redLock.toString().contains(
                "redLockAddresses=[redis://***@127.0.0.1:6379, redis://***@127.0.0.1:6380, redis://127.0.0.1:6381]"), redLock.toString());
        assertTrue(cluster.toString().contains(
                "clusterAddresses=[redis://***@127.0.0.1:7000, redis://***@127.0.0.1:7001]"), cluster.toString());
        for (LockConfig config : List.of(redLock, cluster)) {
            assertFalse(config.toString().contains("s3"), config.toString());
            assertFalse(config.toString().contains("cret"), config.toString());
        }
    }
}
