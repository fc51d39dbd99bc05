/**
 * Redis access: one executor per connection, scripts by SHA, failures mapped to LockException.
 * Internal: may change without notice.
 */
package io.latchkey.internal.redis;
