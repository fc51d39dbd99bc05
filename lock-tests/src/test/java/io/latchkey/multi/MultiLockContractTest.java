package io.latchkey.multi;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHold;
import io.latchkey.contract.SingleServerContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract of every lock kind for a multi-lock over two plain locks of one client, on one
 * real Redis server; see {@link MultiLockRows} for the rows that cannot hold.
 */
@ExtendWith(MultiLockRows.class)
class MultiLockContractTest extends SingleServerContract {

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        DistributedLock first = client.getLock(name); // a null name fails here, as the row expects
        return client.getMultiLock(client.getLock(name + ":second"), first);
    }

    @Override
    protected long tokenOf(LockHold hold) {
        return MultiLockRows.tokenOf(hold);
    }
}
