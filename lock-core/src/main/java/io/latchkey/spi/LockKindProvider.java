package io.latchkey.spi;

/**
 * Found through {@link java.util.ServiceLoader}: how lock-fair and lock-redlock plug their lock
 * kinds into a client without lock-core depending on them. A provider sees only the narrow
 * {@link KindContext}, never the client itself.
 */
public interface LockKindProvider {

    /** @return which kind this provides */
    Kind kind();

    /**
     * @param context what the client shares with its kinds
     * @return the kind, bound to the client; closed with it
     */
    LockKind open(KindContext context);

    /** The kinds that live in other modules, with the artifact that provides each. */
    enum Kind {
        /** {@code LockClient.getFairLock}. */
        FAIR("io.latchkey:lock-fair"),
        /** {@code LockClient.getRedLock}. */
        RED("io.latchkey:lock-redlock");

        private final String artifact;

        Kind(String artifact) {
            this.artifact = artifact;
        }

        /** @return the Maven coordinates of the module that provides it */
        public String artifact() {
            return artifact;
        }
    }
}
