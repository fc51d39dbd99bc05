/**
 * The fair lock: a queue list and a timeout sorted set beside the plain lock's hash, scripts that
 * stay O(1) or O(log n) in the queue's length, and wake-ups addressed to the next waiter only.
 * Internal: may change without notice.
 */
package io.latchkey.internal.fair;
