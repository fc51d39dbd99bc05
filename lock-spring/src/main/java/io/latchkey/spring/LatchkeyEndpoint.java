package io.latchkey.spring;

import io.latchkey.HeldLock;
import io.latchkey.LockClient;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The Actuator endpoint {@code latchkey}: the locks this application holds now, from its
 * {@link LockClient}'s own record ({@link LockClient#heldLocks()}, no round trip to Redis). Its
 * read operation, over HTTP {@code GET /actuator/latchkey}, answers
 *
 * <pre>{@code
 * {"locks": [{"name": "orders:42", "kind": "plain", "ownerId": 57, "fencingToken": 1843,
 *             "heldForMillis": 1250, "leaseLeftMillis": 28750, "waiters": 1}]}
 * }</pre>
 *
 * <p>sorted by name, kind and owner: {@code leaseLeftMillis} is the lease as last confirmed by
 * Redis, {@code waiters} the acquisitions of this application that wait for the same lock.
 * With {@code latchkey.endpoint.force-unlock.enabled=true} the endpoint also has a write operation
 * that force-unlocks one lock (see {@link ForceUnlockingLatchkeyEndpoint}); without it, it has
 * none. Made by the auto-configuration when Actuator is on the class path and the endpoint is
 * available (enabled and exposed). Thread-safe.
 */
@Endpoint(id = "latchkey")
public class LatchkeyEndpoint {

    private final LockClient client;

    LatchkeyEndpoint(LockClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** {@return the locks this application holds now} */
    @ReadOperation
    public Locks locks() {
        return new Locks(client.heldLocks().stream()
                .sorted(Comparator.comparing(HeldLock::name).thenComparing(HeldLock::kind).thenComparingLong(HeldLock::ownerId))
                .map(Lock::of).toList());
    }

    /** {@return the application's client} */
    LockClient client() {
        return client;
    }

    /**
     * The read operation's answer.
     *
     * @param locks the locks this application holds, sorted by name, kind and owner
     */
    public record Locks(List<Lock> locks) implements OperationResponseBody {
    }

    /**
     * One held lock, as the read operation shows it.
     *
     * @param name the lock's name
     * @param kind {@code plain}, {@code fair}, {@code red}, {@code read} or {@code write}
     * @param ownerId the owner: a thread id, or the owner id given to an async call
     * @param fencingToken the hold's fencing token
     * @param heldForMillis since the hold's first grant
     * @param leaseLeftMillis the lease as last confirmed by Redis
     * @param waiters how many acquisitions of this application wait for the same lock
     */
    public record Lock(String name, String kind, long ownerId, long fencingToken, long heldForMillis, long leaseLeftMillis,
                       int waiters) {

        static Lock of(HeldLock held) {
            return new Lock(held.name(), held.kind(), held.ownerId(), held.fencingToken(), held.heldFor().toMillis(),
                    held.leaseLeft().toMillis(), held.waiters());
        }
    }
}
