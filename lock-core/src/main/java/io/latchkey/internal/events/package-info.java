/**
 * Internal: how the machinery tells the client's {@link io.latchkey.LockEventListener} what
 * happened, guarded so that a listener can neither break nor slow a lock. May change in any
 * release.
 */
package io.latchkey.internal.events;
