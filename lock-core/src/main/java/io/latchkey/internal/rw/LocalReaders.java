package io.latchkey.internal.rw;

/**
 * What the write side of a read-write lock asks of, and tells, the client's readers of the same
 * lock that read through its shared read hold. Thread-safe; never blocks.
 */
interface LocalReaders {

    /** For a client without shared reads. */
    LocalReaders NONE = new LocalReaders() {
        @Override
        public boolean readsLocally(long owner) {
            return false;
        }

        @Override
        public void writerWaits() {
        }
    };

    /**
     * @param owner an owner id
     * @return true if the owner reads through the client's shared read hold: asking for the
     *     write lock is then an upgrade, refused as one (Redis does not see its read)
     */
    boolean readsLocally(long owner);

    /** A write try of this client was answered "wait": its place is in Redis, and no new reader may pass it. */
    void writerWaits();
}
