/**
 * The leased semaphore: {@link io.latchkey.internal.semaphore.LeasedSemaphore} over a
 * {@link io.latchkey.internal.semaphore.SemaphoreProtocol}, the proof that the lock-kind seam is
 * open. The protocol is an {@link io.latchkey.spi.AcquireProtocol}, so the one acquire
 * loop does the waiting, deadlines, interrupts and cancels; each permit is a hold of its own in
 * the client's {@link io.latchkey.spi.HoldRegistry} (an owner id used for that permit
 * only), which gives it the confirmed lease, the loss notice and the watchdog of every hold.
 * Internal: may change without notice.
 */
package io.latchkey.internal.semaphore;
