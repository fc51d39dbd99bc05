package io.latchkey.fair;

import io.latchkey.contract.OnEmbeddedRedis6;
import io.latchkey.contract.VariantRows;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link FairLockContractTest} on Redis 6.2 (the binary embedded-redis ships): the fair lock's own
 * rows and the contract rows a server version can change ({@link VariantRows}).
 */
@ExtendWith({OnEmbeddedRedis6.class, VariantRows.class})
class FairLockContractOnRedis6Test extends FairLockContractTest {
}
