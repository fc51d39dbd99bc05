package io.latchkey.spring;

/** {@code latchkey.observations.*}: lock acquisitions and holds as Micrometer Observations, for traces. */
public class ObservationsProperties {

    /** Nothing set, for Spring to bind. */
    public ObservationsProperties() {
    }
    /** Whether lock acquisitions and holds are observed when the application has an ObservationRegistry. */
    private boolean enabled = true;
    /** Whether the lock's name goes on traces (a high-cardinality key value, never on meters): names may hold ids. */
    private boolean lockName;

    /** {@return whether acquisitions and holds are observed} */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Sets whether acquisitions and holds are observed.
     *
     * @param enabled whether acquisitions and holds are observed
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** {@return whether the lock's name goes on traces} */
    public boolean isLockName() {
        return lockName;
    }

    /**
     * Sets whether the lock's name goes on traces.
     *
     * @param lockName whether the lock's name goes on traces
     */
    public void setLockName(boolean lockName) {
        this.lockName = lockName;
    }
}
