package com.example.orders;

import io.latchkey.spring.CurrentLock;
import io.latchkey.spring.Locked;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Service;

/** Ships each order once, whichever node is asked: one lock per order. */
@Service
public class ShippingService {

    /** Stands for the shipping system, which keeps the highest fencing token it has seen per order. */
    private final Map<String, Long> shipped = new ConcurrentHashMap<>();

    /**
     * @param orderId the order
     * @return the fencing token the shipping system recorded for it
     */
    @Locked(name = "orders:#{#orderId}", waitTime = "2s")
    public long ship(String orderId) {
        long token = CurrentLock.fencingToken();
        // A real system refuses a write whose token is below the highest it saw for the order.
        return shipped.merge(orderId, token, Math::max);
    }
}
