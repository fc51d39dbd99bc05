package io.latchkey.fair;

import io.latchkey.contract.OnEmbeddedRedis6;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link FairLockContractTest} on Redis 6.2 (the binary embedded-redis ships). */
@ExtendWith(OnEmbeddedRedis6.class)
class FairLockContractOnRedis6Test extends FairLockContractTest {
}
