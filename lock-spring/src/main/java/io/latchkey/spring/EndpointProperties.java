package io.latchkey.spring;

/** {@code latchkey.endpoint.*}: the Actuator endpoint {@code latchkey}, when the application has Actuator. */
public class EndpointProperties {

    /** Nothing set, for Spring to bind. */
    public EndpointProperties() {
    }
    private final ForceUnlock forceUnlock = new ForceUnlock();

    /** {@return the force-unlock operation's settings} */
    public ForceUnlock getForceUnlock() {
        return forceUnlock;
    }

    /**
     * {@code latchkey.endpoint.force-unlock.*}: the endpoint's write operation, which deletes a lock
     * whoever holds it. Off unless turned on, as it lets whoever may call the endpoint break the
     * mutual exclusion that every holder relies on.
     */
    public static class ForceUnlock {

        /** Nothing set, for Spring to bind. */
        public ForceUnlock() {
        }
        /**
         * Whether the latchkey endpoint has its write operation, which force-unlocks one lock by name and
         * kind whoever holds it. Off by default: turn it on only where the endpoint is secured.
         */
        private boolean enabled;

        /** {@return whether the endpoint can force-unlock} */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets whether the endpoint can force-unlock.
         *
         * @param enabled whether the endpoint can force-unlock
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
