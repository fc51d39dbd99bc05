/**
 * Redis access: one executor per connection, scripts by SHA; {@link io.latchkey.internal.redis.LockExceptions},
 * which builds every exception the library throws, and {@link io.latchkey.internal.redis.Redaction},
 * which keeps passwords out of what it shows.
 * Internal: may change without notice.
 */
package io.latchkey.internal.redis;
