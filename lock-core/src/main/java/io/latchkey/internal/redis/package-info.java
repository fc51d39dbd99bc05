/**
 * Redis access: one executor per connection, scripts by SHA; {@link io.latchkey.internal.redis.LockExceptions},
 * which builds the exceptions the library throws (RedLock's own are built in lock-redlock),
 * {@link io.latchkey.internal.redis.Failures}, which reads what a failure means, and
 * {@link io.latchkey.internal.redis.Redaction}, which keeps passwords out of what it shows.
 * Internal: may change without notice.
 */
package io.latchkey.internal.redis;
