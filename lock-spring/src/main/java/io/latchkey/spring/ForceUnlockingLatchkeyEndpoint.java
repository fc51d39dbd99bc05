package io.latchkey.spring;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code latchkey} endpoint with its write operation, made instead of {@link LatchkeyEndpoint}
 * only with {@code latchkey.endpoint.force-unlock.enabled=true}: over HTTP,
 * {@code POST /actuator/latchkey} with {@code {"name": "orders:42", "kind": "plain"}} (the kind may
 * be left out for a plain lock) deletes that lock whoever holds it, in any application, and answers
 * {@code {"name": "orders:42", "kind": "plain", "wasLocked": true}}. Its holder learns of the loss as
 * of any lost lease ({@code LockHold.leaseLost()}), but may act on the lock until then: this is for
 * an operator freeing a lock whose holder is known to be gone. Thread-safe.
 */
@Endpoint(id = "latchkey")
final class ForceUnlockingLatchkeyEndpoint extends LatchkeyEndpoint {

    ForceUnlockingLatchkeyEndpoint(LockClient client) {
        super(client);
    }

    /**
     * Force-unlocks one lock, as {@link DistributedLock#forceUnlock()} does.
     *
     * @param name the lock's name
     * @param kind {@code plain} (also when null), {@code fair}, {@code red}, {@code read} (ends
     *     every read hold of a read-write lock) or {@code write} (ends its write hold)
     * @return the lock and whether it was locked
     * @throws InvalidEndpointRequestException for another kind (a 400 over HTTP)
     * @throws io.latchkey.LockException if Redis fails
     */
    @WriteOperation
    public ForceUnlocked forceUnlock(String name, @Nullable String kind) {
        String named = kind == null || kind.isBlank() ? "plain" : kind;
        DistributedLock lock = switch (named) {
            case "plain" -> client().getLock(name);
            case "fair" -> client().getFairLock(name);
            case "red" -> client().getRedLock(name);
            case "read" -> client().getReadWriteLock(name).readLock();
            case "write" -> client().getReadWriteLock(name).writeLock();
            default -> throw new InvalidEndpointRequestException("no lock kind '" + named + "': plain, fair, red, read or write",
                    "unknown lock kind");
        };
        return new ForceUnlocked(name, named, lock.forceUnlock());
    }

    /**
     * The write operation's answer.
     *
     * @param name the lock's name
     * @param kind the lock's kind
     * @param wasLocked whether the lock existed, and so was deleted
     */
    public record ForceUnlocked(String name, String kind, boolean wasLocked) implements OperationResponseBody {
    }
}
