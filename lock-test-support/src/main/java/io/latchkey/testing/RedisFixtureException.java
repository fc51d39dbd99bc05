package io.latchkey.testing;

/**
 * Thrown when the fixture cannot provide what a test asked for: no usable {@code redis-server}
 * binary, a server that does not come up, a process that does not exit or does not take a
 * signal. The message says which server and, where the server wrote one, ends with the tail of
 * its log.
 *
 * <p>It signals a broken environment, not a failed assertion, so tests should let it propagate.
 */
public final class RedisFixtureException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, not null
     */
    public RedisFixtureException(String message) {
        super(message);
    }

    /**
     * @param message what failed, not null
     * @param cause the underlying failure, may be null
     */
    public RedisFixtureException(String message, Throwable cause) {
        super(message, cause);
    }
}
