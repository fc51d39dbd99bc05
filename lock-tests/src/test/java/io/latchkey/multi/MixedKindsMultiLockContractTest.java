package io.latchkey.multi;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHold;
import io.latchkey.contract.SingleServerContract;
import io.latchkey.contract.VariantRows;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract of every lock kind for a multi-lock over a plain and a fair lock: parts of two
 * kinds, each waiting by its own messages (the fair one in its queue) and renewed by its own
 * kind's watchdog. See {@link MultiLockRows} for the rows that cannot hold. The client-side rows
 * run in {@code MultiLockContractTest} and in each part kind's own contract ({@link VariantRows}):
 * a multi-lock starts and cancels its parts' acquisitions through the same {@code Acquisition}
 * that the part's own facade uses for its forms, interrupts and cancels.
 */
@ExtendWith({MultiLockRows.class, VariantRows.class})
class MixedKindsMultiLockContractTest extends SingleServerContract {

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        DistributedLock plain = client.getLock(name);
        return client.getMultiLock(client.getFairLock(name + ":fair"), plain);
    }

    @Override
    protected long tokenOf(LockHold hold) {
        return MultiLockRows.tokenOf(hold);
    }
}
