package io.latchkey.internal.multi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import java.lang.reflect.Proxy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one order of a multi-lock's parts, and the arguments it refuses; no Redis needed. */
class PartOrderTest {

    @Test
    void partsAreTakenByNameWhateverTheOrderGiven() {
        DistributedLock a = named("a");
        DistributedLock b = named("b");
        DistributedLock c = named("c");

        List<DistributedLock> forward = locksOf(PartOrder.of(new DistributedLock[] {a, b, c}, null, 0));
        List<DistributedLock> backward = locksOf(PartOrder.of(new DistributedLock[] {c, b, a}, null, 0));
        List<DistributedLock> shuffled = locksOf(PartOrder.of(new DistributedLock[] {b, c, a}, null, 0));

        assertEquals(List.of(a, b, c), forward);
        assertEquals(forward, backward, "two multi-locks over the same locks agree on the order");
        assertEquals(forward, shuffled);
    }

    @Test
    void partsOfOneNameWhosePlaceIsUnknownKeepTheOrderGiven() {
        DistributedLock first = named("same");
        DistributedLock second = named("same");

        assertEquals(List.of(first, second), locksOf(PartOrder.of(new DistributedLock[] {first, second}, null, 0)));
        assertEquals(List.of(second, first), locksOf(PartOrder.of(new DistributedLock[] {second, first}, null, 0)));
    }

    @Test
    void noLockNullOrTheSameLockTwiceIsRefusedNamingTheArgument() {
        DistributedLock a = named("a");

        assertTrue(assertThrows(IllegalArgumentException.class, () -> PartOrder.of(new DistributedLock[0], null, 0))
                .getMessage().contains("locks"));
        assertEquals("locks", assertThrows(NullPointerException.class, () -> PartOrder.of(null, null, 0)).getMessage());
        assertEquals("locks[1]", assertThrows(NullPointerException.class,
                () -> PartOrder.of(new DistributedLock[] {a, null}, null, 0)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PartOrder.of(new DistributedLock[] {a, named("b"), a}, null, 0))
                .getMessage().contains("locks[0] and locks[2] are the same lock 'a'"));
    }

    private static List<DistributedLock> locksOf(List<Part> parts) {
        return parts.stream().map(Part::lock).toList();
    }

    /** A lock that is not Latchkey's own, which answers only its name. */
    private static DistributedLock named(String name) {
        return (DistributedLock) Proxy.newProxyInstance(PartOrderTest.class.getClassLoader(), new Class<?>[] {DistributedLock.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getName" -> name;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "lock " + name;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
