package io.latchkey.internal.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisURI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one rule that keeps passwords out of what the library shows. */
class RedactionTest {

    @Test
    void credentialsGoAndTheRestStays() {
        assertEquals("redis://***@localhost:6379/0", Redaction.uri("redis://user:pw@localhost:6379/0"));
        assertEquals("redis://***@localhost:6379", Redaction.uri("redis://:pw@localhost:6379"));
        assertEquals("rediss://***@cache.example.com:6380", Redaction.uri("rediss://default:pw@cache.example.com:6380"));
    }

    @Test
    void aPasswordWithAtSlashOrColonInItGoesWhole() {
        assertEquals("redis://***@localhost:6379", Redaction.uri("redis://:s3cr:t@/x@localhost:6379"));
        assertEquals("redis://***@h:1/0", Redaction.uri("redis://user:p@ss/w:rd@h:1/0"));
        assertEquals("redis://***@h", Redaction.uri("redis://u:a?b#c/d@h"));
        assertEquals("redis://***@h:1", Redaction.uri("redis://:s3cr%3At%40%2Fx@h:1"), "encoded, too");
    }

    @Test
    void aSentinelGroupKeepsEveryHostAndTheMasterName() {
        assertEquals("redis-sentinel://***@s1:26379,s2:26380,s3/0#mymaster",
                Redaction.uri("redis-sentinel://:pw@s1:26379,s2:26380,s3/0#mymaster"));
        assertEquals("rediss-sentinel://***@s1,s2#mymaster", Redaction.uri("rediss-sentinel://u:p@w@s1,s2#mymaster"));
    }

    @Test
    void aUriWithoutCredentialsIsUnchanged() {
        for (String uri : new String[] {"redis://localhost:6379", "rediss://h:6380/2", "redis-sentinel://s1,s2/0#m",
                "redis-socket:///tmp/redis.sock", "not a uri"}) {
            assertEquals(uri, Redaction.uri(uri));
        }
    }

    @Test
    void redactingTwiceChangesNothing() {
        String once = Redaction.uri("redis://:s3cr:t@/x@localhost:6379");
        assertEquals(once, Redaction.uri(once));
        assertEquals(once, Redaction.inText(once));
    }

    @Test
    void severalHostsEachLoseTheirCredentials() {
        assertEquals(List.of("redis://***@n1:7000", "redis://n2:7001", "rediss://***@n3:7002"),
                Redaction.uris(List.of("redis://:a@b@n1:7000", "redis://n2:7001", "rediss://u:p:q@n3:7002")));
    }

    @Test
    void everyUriInFreeTextLosesItsCredentials() {
        String text = "cannot connect to cluster [redis://:p@1@n1:7000, rediss://u:p/2@n2:7001] (redis://n3:7002 is fine)";
        assertEquals("cannot connect to cluster [redis://***@n1:7000, rediss://***@n2:7001] (redis://n3:7002 is fine)",
                Redaction.inText(text));
        assertEquals("null", Redaction.inText(null));
        assertEquals("no uri here, user@example.com", Redaction.inText("no uri here, user@example.com"));
    }

    @Test
    void aParsedUriShowsNeitherThePasswordNorItsLength() {
        RedisURI parsed = RedisURI.create("redis://:s3cr%3At%40%2Fx@127.0.0.1:6390/0");
        String shown = Redaction.uri(parsed);
        assertFalse(shown.contains("s3cr"), shown);
        assertTrue(shown.startsWith("redis://***@127.0.0.1"), shown);
    }
}
