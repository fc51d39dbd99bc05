package io.latchkey.spring;

/** {@code latchkey.metrics.*}. */
public class MetricsProperties {

    /** Nothing set, for Spring to bind. */
    public MetricsProperties() {
    }
    /** Whether meters are registered when the application has a MeterRegistry. */
    private boolean enabled = true;
    /** Whether every lock meter also gets a name tag (the lock's name): only for few, fixed lock names. */
    private boolean lockNameTag;
    /** With lock-name-tag: how many names get tags of their own; later ones share the tag "_other". */
    private int maxLockNames = 100;

    /** {@return whether meters are registered} */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Sets whether meters are registered.
     *
     * @param enabled whether meters are registered
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** {@return whether lock meters carry the lock's name} */
    public boolean isLockNameTag() {
        return lockNameTag;
    }

    /**
     * Sets whether lock meters carry the lock's name.
     *
     * @param lockNameTag whether lock meters carry the lock's name
     */
    public void setLockNameTag(boolean lockNameTag) {
        this.lockNameTag = lockNameTag;
    }

    /** {@return with lock-name-tag, how many names get tags of their own} */
    public int getMaxLockNames() {
        return maxLockNames;
    }

    /**
     * Sets how many lock names get tags of their own, with lock-name-tag.
     *
     * @param maxLockNames at least 1
     */
    public void setMaxLockNames(int maxLockNames) {
        this.maxLockNames = maxLockNames;
    }
}
