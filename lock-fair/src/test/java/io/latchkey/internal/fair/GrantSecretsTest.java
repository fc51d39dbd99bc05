package io.latchkey.internal.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a grant message lets a fair waiter enter on, below Redis: only release.lua's proof of the
 * waiter's own last secret for the token it names. Every other word is answered with a try
 * (empty here), so a forged, replayed or garbled message costs one try and nothing else. The
 * real proofs that release.lua makes are checked against Redis in FairLockGrantTest.
 */
class GrantSecretsTest {

    private static final String TOKEN = "1732650000123456";

    @Test
    void aProofOfTheWaitersSecretForTheNamedTokenGrantsThatToken() throws Exception {
        String secret = GrantSecrets.next();

        assertEquals(OptionalLong.of(Long.parseLong(TOKEN)), GrantSecrets.provenToken(TOKEN + " " + proof(TOKEN, secret), secret));
    }

    @Test
    void aProofOfAnotherSecretGrantsNothing() throws Exception {
        String replayedFromAnEarlierTry = GrantSecrets.next();

        assertTrue(GrantSecrets.provenToken(TOKEN + " " + proof(TOKEN, replayedFromAnEarlierTry), GrantSecrets.next()).isEmpty());
    }

    @Test
    void aProofCannotBeMovedToAnotherToken() throws Exception {
        String secret = GrantSecrets.next();
        String earlier = "1732650000000001";

        assertTrue(GrantSecrets.provenToken(earlier + " " + proof(TOKEN, secret), secret).isEmpty(),
                "a lower token would break fencing order if a waiter entered on it");
    }

    @Test
    void wordsThatAreNotAGrantGrantNothing() throws Exception {
        String secret = GrantSecrets.next();
        String proof = proof(TOKEN, secret);

        assertTrue(GrantSecrets.provenToken("", secret).isEmpty());
        assertTrue(GrantSecrets.provenToken(TOKEN, secret).isEmpty(), "a name-only wake-up");
        assertTrue(GrantSecrets.provenToken(TOKEN + " ", secret).isEmpty());
        assertTrue(GrantSecrets.provenToken("x" + TOKEN + " " + proof, secret).isEmpty());
        assertTrue(GrantSecrets.provenToken("99999999999999999999 " + proof, secret).isEmpty(), "beyond a long");
        assertTrue(GrantSecrets.provenToken(TOKEN + " " + proof.toUpperCase(java.util.Locale.ROOT), secret).isEmpty());
        assertTrue(GrantSecrets.provenToken(TOKEN + " " + proof + " ", secret).isEmpty());
        assertTrue(GrantSecrets.provenToken(TOKEN + "  " + proof, secret).isEmpty());
    }

    @Test
    void eachSecretIsNewAnd128Bits() {
        String one = GrantSecrets.next();

        assertEquals(32, one.length());
        assertNotEquals(one, GrantSecrets.next());
    }

    @Test
    void aGrantIsCountedOnUntilTheTrysSendPlusThePlaceLessRedisTimesFlooring() {
        long sent = 5_000_000_000L;
        long place = TimeUnit.SECONDS.toNanos(4);

        // acquire.lua's deadline is Redis TIME floored to the millisecond plus the place, and the
        // try ran no earlier than it was sent: it may end a millisecond before sent + place.
        assertEquals(sent + place - TimeUnit.MILLISECONDS.toNanos(2), FairLockProtocol.grantLastsUntil(sent, place));
    }

    /** release.lua's proof, made here independently: the SHA-1 of {@code <token>:<secret>} in lower-case hex. */
    private static String proof(String token, String secret) throws Exception {
        byte[] digest = MessageDigest.getInstance("SHA-1").digest((token + ":" + secret).getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest);
    }
}
