/**
 * How waiters are woken: unlock messages over one pub/sub connection, parked waits bounded by the
 * client's timer. Internal: may change without notice.
 */
package io.latchkey.internal.wakeup;
