package io.latchkey;

import io.latchkey.contract.OnEmbeddedRedis6;
import io.latchkey.contract.VariantRows;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link PlainLockTest}, the contract rows a server version can change ({@link VariantRows}) and
 * the plain lock's own layout, on Redis 6.2 (the binary embedded-redis ships): the oldest server
 * Latchkey supports, without the functions, sharded pub/sub and reply types that Redis 7 added.
 */
@ExtendWith({OnEmbeddedRedis6.class, VariantRows.class})
class PlainLockOnRedis6Test extends PlainLockTest {
}
