/**
 * The client: its resources, its connections, and the seam through which other modules add lock
 * kinds. Internal: may change without notice.
 *
 * <h2>Shape</h2>
 * <ul>
 *   <li>{@link io.latchkey.internal.client.SharedResources}: one per client. One timer (Lettuce
 *       uses it too) and one set of Lettuce event loops, shared by every Redis the client talks
 *       to; closed last.</li>
 *   <li>{@link io.latchkey.internal.client.RedisTopology}: the connections to one deployment
 *       (standalone/Sentinel or Cluster), each wired to the client's one watchdog and one record
 *       of unsettled calls through a {@link io.latchkey.internal.lock.LockContext}.</li>
 *   <li>{@link io.latchkey.spi.LockKindProvider}: lock-fair and lock-redlock register
 *       one through {@link java.util.ServiceLoader}. A provider gets a
 *       {@link io.latchkey.spi.KindContext}, never the client: the configuration,
 *       the client's Redis, further servers on the client's resources, the timer.</li>
 * </ul>
 * A kind built in lock-core needs no provider: it implements
 * {@link io.latchkey.spi.LockProtocol} on a {@code LockContext} and is served by
 * {@link io.latchkey.internal.lock.LockFacade}, like the plain lock.
 */
package io.latchkey.internal.client;
