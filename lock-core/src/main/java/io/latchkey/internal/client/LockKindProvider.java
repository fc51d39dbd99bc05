package io.latchkey.internal.client;

/**
 * Found through {@link java.util.ServiceLoader}: how lock-fair and lock-redlock plug their lock
 * kinds into a client without lock-core depending on them.
 */
public interface LockKindProvider {

    /** The kind {@code getFairLock} asks for. */
    String FAIR = "fair";
    /** The kind {@code getRedLock} asks for. */
    String RED = "red";

    /** @return {@link #FAIR} or {@link #RED} */
    String kind();

    /**
     * @param client the client the kind serves
     * @return the kind, bound to the client
     */
    LockKind open(DefaultLockClient client);
}
