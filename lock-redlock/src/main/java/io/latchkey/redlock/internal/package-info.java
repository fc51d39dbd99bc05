/**
 * The RedLock machinery: the quorum protocol over the masters' plain locks, its watchdog view
 * and its wake-ups, and the lock kind behind {@code LockClient.getRedLock}. Not exported;
 * internal: may change without notice.
 */
package io.latchkey.redlock.internal;
