/**
 * Latchkey's public API: {@link io.latchkey.LockClient} hands out {@link io.latchkey.DistributedLock}s
 * backed by Redis. Everything outside this package (and {@code io.latchkey.redlock}) is internal.
 */
package io.latchkey;
