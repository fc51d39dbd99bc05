package io.latchkey.internal.fair;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.OptionalLong;

/**
 * The one-time secrets that let a fair waiter believe the release's grant message, and only it.
 * Anyone who may PUBLISH on the lock's channel can send a waiter a message; a grant entered on
 * the message alone would let such a message break mutual exclusion. So every try sends a fresh
 * secret, which acquire.lua keeps with the waiter's place (only in Redis and in this client), and
 * release.lua's grant message carries the SHA-1 of {@code <token>:<secret>}: the proof that it
 * was made by the script that read the secret, for that token. The secret is deleted by the grant
 * that uses it, and replaced by the waiter's next try, so a real message seen on the channel and
 * sent again later proves nothing; a message cannot name another token with the same secret
 * without knowing the secret. Thread-safe.
 */
final class GrantSecrets {

    /** 128 bits: a forged proof is a guess of the SHA-1 of an unknown 128-bit secret. */
    private static final int SECRET_BYTES = 16;
    private static final HexFormat HEX = HexFormat.of();

    /** One for the process: SecureRandom is thread-safe, and seeding one per lock would cost each. */
    private static final SecureRandom RANDOM = new SecureRandom();

    private GrantSecrets() {
    }

    /** @return a new secret for one try, as hex digits */
    static String next() {
        byte[] secret = new byte[SECRET_BYTES];
        RANDOM.nextBytes(secret);
        return HEX.formatHex(secret);
    }

    /**
     * Reads a grant message, {@code <token> <proof>}, as release.lua publishes it.
     *
     * @param word the message's text after the waiter's name
     * @param secret the secret of the waiter's last try answered "queued"
     * @return the token the message grants, if its proof is release.lua's for that token and
     *     secret; empty for anything else, which the waiter answers with a try
     */
    static OptionalLong provenToken(String word, String secret) {
        int space = word.indexOf(' ');
        if (space < 0) {
            return OptionalLong.empty();
        }
        String token = word.substring(0, space);
        long value;
        try {
            value = Long.parseLong(token);
        } catch (NumberFormatException notAToken) {
            return OptionalLong.empty();
        }
        return proves(secret, token, word.substring(space + 1)) ? OptionalLong.of(value) : OptionalLong.empty();
    }

    /**
     * @param secret the secret of the waiter's last try that was answered "queued"
     * @param token the token the message names
     * @param proof the proof the message carries
     * @return true if the proof is release.lua's for that token and secret
     */
    static boolean proves(String secret, String token, String proof) {
        byte[] expected = HEX.formatHex(sha1(token + ':' + secret)).getBytes(StandardCharsets.US_ASCII);
        // Compared in constant time: the proof is the only thing a forger controls.
        return MessageDigest.isEqual(expected, proof.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] sha1(String text) {
        try {
            return MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-1", e);
        }
    }
}
