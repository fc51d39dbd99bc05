package io.latchkey.spring;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** {@code latchkey.local-hand-off.*}: the plain lock's local hand-off, on unless turned off. */
public class LocalHandOffProperties {

    /** Nothing set, for Spring to bind. */
    public LocalHandOffProperties() {
    }
    /** Whether a release passes the client's Redis hold straight to a waiting owner of the same client. */
    private boolean enabled = true;
    /** How many hand-offs in a row while another client waits (default 32). */
    private @Nullable Integer maxHandOffs;
    /** How long the client's Redis hold is passed on while another client waits (default 20ms). */
    private @Nullable Duration maxTime;

    /** {@return whether local hand-off is on} */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Sets whether local hand-off is on.
     *
     * @param enabled whether local hand-off is on
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** {@return the bound on hand-offs in a row, or null for the default} */
    public @Nullable Integer getMaxHandOffs() {
        return maxHandOffs;
    }

    /**
     * Sets the bound on hand-offs in a row.
     *
     * @param maxHandOffs the bound on hand-offs in a row
     */
    public void setMaxHandOffs(@Nullable Integer maxHandOffs) {
        this.maxHandOffs = maxHandOffs;
    }

    /** {@return the bound on the time a hold is passed on, or null for the default} */
    public @Nullable Duration getMaxTime() {
        return maxTime;
    }

    /**
     * Sets the bound on the time a hold is passed on.
     *
     * @param maxTime the bound on the time a hold is passed on
     */
    public void setMaxTime(@Nullable Duration maxTime) {
        this.maxTime = maxTime;
    }
}
