package io.latchkey.internal.lock;

import io.latchkey.internal.lock.UnsettledCalls.HoldId;
import io.latchkey.internal.time.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** One owner's line of calls on a manual timer, and the names of the calls it sent, in order. */
abstract class CallLineFixture {

    static final HoldId HOLD = new HoldId("redis", "lock", "client:1");

    final ManualTimer timer = ManualTimer.manual();
    final UnsettledCalls calls = new UnsettledCalls(timer);
    final List<String> sent = new ArrayList<>();

    /** Sends a call of the owner through its line, recording its name when it goes out. */
    CompletableFuture<String> send(String name, CompletableFuture<String> reply) {
        return calls.after(HOLD, () -> {
            sent.add(name);
            return reply;
        });
    }
}
