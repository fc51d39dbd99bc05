/**
 * The lock machinery shared by every lock kind: one acquire loop, the blocking facade, and the
 * reentrant hash lock. Internal: may change without notice.
 */
package io.latchkey.internal.lock;
