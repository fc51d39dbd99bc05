package io.latchkey.internal.watchdog;

import io.latchkey.internal.redis.RedisExecutor;

/**
 * Identifies a renewed hold: one per Redis, key and field.
 *
 * @param executor the Redis that holds it
 * @param key the key it is known by (the lock hash)
 * @param field the owner's field, or the permit's id
 */
record HoldKey(RedisExecutor executor, String key, String field) {
}
